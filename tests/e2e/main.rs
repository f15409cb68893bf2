//! End-to-end tests: the real server on a free port, over HTTP, against both stores.

mod helpers;

mod attacks;
mod auth;
mod batches;
mod blobs;
mod bounds;
mod brand;
mod browser;
mod canvas;
mod chromium;
mod cli;
mod console;
mod customers;
mod designs;
mod guests;
mod images;
mod mail;
mod many_hosts;
mod moo_clients;
mod npm_package;
mod operations;
mod orders;
mod packs;
mod paperwork;
mod payments;
mod physical_spec;
mod press;
mod render;
#[path = "../../engine/tests/support/scenes.rs"]
mod scenes;
mod shop;
mod static_files;
mod store;
mod transport;
mod trust;
mod warnings;
