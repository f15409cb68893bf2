//! Presspack's host: the Print Product Pack API over HTTP, its storage, and the operator CLI.

pub mod api;
pub mod app;
pub mod auth;
pub mod canvas;
pub mod cart;
pub mod cli;
pub mod client;
pub mod config;
pub mod customers;
pub mod designs;
pub mod dropins;
pub mod engine_host;
pub mod fonts;
pub mod images;
pub mod observe;
pub mod orders;
pub mod packs;
pub mod render;
pub mod secrets;
pub mod serve;
pub mod store;
pub mod templates;
pub mod text;
pub mod web;
pub mod webhooks;
