//! The customer pages: accounts, drop-ins, cart, checkout, orders, new artwork for a held
//! order and the design canvas.

pub mod account;
pub mod account_links;
pub mod artwork;
pub mod canvas;
pub mod cart;
pub mod dropins;
pub mod error;
pub mod forms;
pub mod home;
pub mod layout;
pub mod orders;
pub mod proofs;
pub mod sessions;
pub mod settings;
pub mod shop_files;
pub mod static_files;
