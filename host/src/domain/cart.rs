//! The customer's cart of packs with prices from the price list. A cart lives in its
//! customer's record ([`crate::domain::customers`]); a pack a partner adds with
//! `svc.pack.addToCart` reaches it when the customer opens the pack's `cart` or `checkout`
//! drop-in.

use presspack_engine::model::PhysicalSpec;

use crate::domain::customers::{self, CartLine, Customer};
use crate::domain::error::{DomainError, ErrorCode};
use crate::domain::ids::PackId;
use crate::domain::packs::{self, PackRecord};
use crate::domain::prices::{Currency, Money};
use crate::domain::services::Services;

/// Largest quantity of one pack in a cart or an order.
pub const MAX_QUANTITY: u32 = 100;
/// Most packs in one cart (and so in one order).
pub const MAX_CART_LINES: usize = 30;

/// Reads a quantity: a whole number from 1 to [`MAX_QUANTITY`].
pub fn parse_quantity(name: &str, value: &str) -> Result<u32, String> {
    value
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|q| (1..=MAX_QUANTITY).contains(q))
        .ok_or_else(|| format!("{name}: expected a whole number from 1 to {MAX_QUANTITY}"))
}

/// Puts a pack in the customer's cart: with `quantity` if given (replacing the line's),
/// else with the line's quantity or 1. A full cart ([`MAX_CART_LINES`]) takes no new pack.
pub async fn put(
    state: &Services,
    customer_id: &str,
    pack_id: &PackId,
    quantity: Option<u32>,
) -> Result<Customer, DomainError> {
    customers::modify(state.store.as_ref(), customer_id, |customer| {
        let full = customer.cart.len() >= MAX_CART_LINES;
        match customer
            .cart
            .iter_mut()
            .find(|line| line.pack_id == *pack_id)
        {
            Some(line) => line.quantity = quantity.unwrap_or(line.quantity),
            None if full => {
                return Err(DomainError::new(
                    ErrorCode::CartFull,
                    format!(
                        "A cart holds at most {MAX_CART_LINES} packs. Order or remove some, then open this link again."
                    ),
                ));
            }
            None => customer.cart.push(CartLine {
                pack_id: pack_id.clone(),
                quantity: quantity.unwrap_or(1),
            }),
        }
        Ok(())
    })
    .await
}

/// A cart line with its pack and price.
pub struct PricedLine {
    pub pack_id: PackId,
    pub pack: PackRecord,
    pub quantity: u32,
    pub unit_price: Money,
    pub line_total: Money,
}

impl PricedLine {
    pub fn spec(&self) -> &PhysicalSpec {
        &self.pack.physical_spec
    }
}

/// The customer's cart with every pack loaded and priced. Packs that are gone or no longer
/// the customer's are left out; any other failure (the store is down) fails the whole cart,
/// never a line of it.
pub async fn priced_lines(
    state: &Services,
    customer: &Customer,
) -> Result<Vec<PricedLine>, DomainError> {
    let mut lines = Vec::with_capacity(customer.cart.len());
    for line in &customer.cart {
        let stored = match packs::load(state, &line.pack_id).await {
            Ok(stored) => stored,
            Err(error) if error.code == ErrorCode::PackNotFound => continue,
            Err(error) => return Err(error),
        };
        if !stored.record.is_owned_by(&customer.id) {
            continue;
        }
        let unit_price = state
            .prices
            .unit_price(&stored.record.product, &stored.record.physical_spec)
            .ok_or_else(|| {
                DomainError::new(
                    ErrorCode::Internal,
                    format!("no price for pack {}'s specification", stored.id),
                )
            })?;
        lines.push(PricedLine {
            pack_id: stored.id,
            pack: stored.record,
            quantity: line.quantity,
            unit_price,
            line_total: unit_price.times(line.quantity),
        });
    }
    Ok(lines)
}

/// What the lines cost together, in the shop's `currency`.
pub fn total(currency: Currency, lines: &[PricedLine]) -> Money {
    Money::new(lines.iter().map(|l| l.line_total.minor).sum(), currency)
}

/// Describes a physical specification for people: "classic paper, rounded corners, matte
/// laminate, 50 cards".
pub fn describe_spec(spec: &PhysicalSpec) -> String {
    format!(
        "{} paper, {}, {}, {} per pack",
        option_name(&spec.paper_class),
        option_name(&spec.finishing_option).to_lowercase(),
        option_name(&spec.paper_laminate).to_lowercase(),
        spec.pack_size
    )
}

/// Names and descriptions of the catalogue's paper classes, finishing options and laminates,
/// for customers (the codes are the API's).
const OPTIONS: [(&str, &str, &str); 12] = [
    (
        "classic",
        "Classic",
        "Smooth uncoated 350 gsm card, the everyday choice",
    ),
    ("green", "Green", "100% recycled 350 gsm card, natural feel"),
    (
        "quadplex_black",
        "Luxe black core",
        "Four layers, 600 gsm, a black line round the edge",
    ),
    (
        "quadplex_red",
        "Luxe red core",
        "Four layers, 600 gsm, a red line round the edge",
    ),
    (
        "quadplex_blue",
        "Luxe blue core",
        "Four layers, 600 gsm, a blue line round the edge",
    ),
    (
        "quadplex_white",
        "Luxe white core",
        "Four layers, 600 gsm, all white",
    ),
    ("square_corners", "Square corners", "Cut straight"),
    (
        "rounded_corners",
        "Rounded corners",
        "Corners rounded to a 3 mm radius",
    ),
    ("standard", "Standard", "Cut straight"),
    ("nolam", "No laminate", "Natural finish, easy to write on"),
    ("matte", "Matte laminate", "Soft touch, no glare"),
    ("gloss", "Gloss laminate", "Shiny, deep colours"),
];

/// A paper option's name for customers; an option not in the table is named by its code.
pub fn option_name(code: &str) -> String {
    OPTIONS
        .iter()
        .find(|(known, _, _)| *known == code)
        .map_or_else(|| code.replace('_', " "), |(_, name, _)| (*name).to_owned())
}

/// A paper option's description for customers, if it has one.
pub fn option_description(code: &str) -> Option<&'static str> {
    OPTIONS
        .iter()
        .find(|(known, _, _)| *known == code)
        .map(|(_, _, description)| *description)
}
