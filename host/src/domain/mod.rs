//! The service's rules: packs and their warnings, images, designs, API keys, customers,
//! carts, prices, orders, drop-ins, order webhooks and the operators of the console. Every operation answers a
//! [`error::DomainError`], whose code says what kind of failure it is (no such thing, not
//! allowed, invalid input, the store or the engine unavailable); the HTTP edge turns it into
//! an API reply or a page.

pub mod account_links;
pub mod brand;
pub mod cart;
pub mod customers;
pub mod designs;
pub mod dropins;
pub mod error;
pub mod ids;
pub mod images;
pub mod keys;
pub mod mail;
pub mod one_line;
pub mod operators;
pub mod orders;
pub mod ownership;
pub mod packs;
pub mod press;
pub mod prices;
pub mod services;
pub mod sides;
pub mod webhooks;
