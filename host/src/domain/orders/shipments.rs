//! Shipping a batch from a list: CSV text with an order number, a carrier and a tracking
//! number on each line (as a carrier's system or a spreadsheet writes it). Each line is read
//! and judged on its own, so one bad line refuses that line and no other: a cell a
//! spreadsheet would run as a formula, control or bidi characters, an unknown order, an order
//! named on two lines, an order that is not in production. The lines that pass are shipped one
//! by one, as [`status::change`] would each; the caller shows every line's outcome.

use std::collections::HashMap;

use crate::domain::ids::OrderNumber;
use crate::domain::one_line::capitalised;
use crate::domain::orders::status::{self, Mailing, Move, MoveError};
use crate::infra::clock::Clock;
use crate::infra::store::Store;

/// Most lines one list ships (counted before any work).
pub const MAX_LINES: usize = 1000;

/// Largest list, in bytes (the upload is refused beyond it).
pub const MAX_BYTES: usize = 1024 * 1024;

/// What became of one line of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineOutcome {
    /// 1 for the first line of the text.
    pub line: usize,
    /// The order number as written (for the report; `?` when the line has none).
    pub order: String,
    /// `Ok` once shipped; else why not.
    pub outcome: Result<(), String>,
}

/// Why a list was refused as a whole.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    #[error(
        "The list holds no shipments: one line per order, with its order number, carrier and tracking number."
    )]
    Empty,
    #[error("A list ships at most {MAX_LINES} orders; this one has {0} lines. Split it.")]
    TooManyLines(usize),
}

/// A line that can be shipped: its order and its checked [`Move::Ship`].
struct Shipment {
    line: usize,
    number: OrderNumber,
    ship: Move,
}

/// The cells of one CSV line split at `delimiter` (RFC 4180 quoting: `"a, b"`, `""` for a
/// quote), or why they cannot be read. A quoted cell must end on its line.
fn cells(line: &str, delimiter: char) -> Result<Vec<String>, String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut chars = line.chars().peekable();
    let mut quoted = false;
    let mut started = true; // at the start of a cell
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            '"' if quoted => quoted = false,
            '"' if started => quoted = true,
            c if c == delimiter && !quoted => {
                cells.push(std::mem::take(&mut cell));
                started = true;
                continue;
            }
            c => cell.push(c),
        }
        started = false;
    }
    if quoted {
        return Err("a quoted cell does not end on its line".to_owned());
    }
    cells.push(cell);
    Ok(cells)
}

/// The delimiter of the list: `;` or a tab when the first line has one and no comma (as
/// spreadsheets in many countries write CSV), else a comma.
fn delimiter(first: &str) -> char {
    for candidate in [';', '\t'] {
        if first.contains(candidate) && !first.contains(',') {
            return candidate;
        }
    }
    ','
}

/// Whether a spreadsheet would run `cell` as a formula (CSV injection).
fn is_formula(cell: &str) -> bool {
    cell.trim_start().starts_with(['=', '+', '-', '@'])
}

/// Whether `line`'s cells are the list's heading (`order,carrier,tracking`).
fn is_heading(cells: &[String]) -> bool {
    (cells.first()).is_some_and(|first| first.trim().to_ascii_lowercase().starts_with("order"))
}

/// `value` as a report shows it: at most 40 characters, control and bidi characters escaped.
fn shown(value: &str) -> String {
    let escaped: String = value.trim().chars().flat_map(char::escape_debug).collect();
    match escaped.char_indices().nth(40) {
        Some((end, _)) => format!("{}...", &escaped[..end]),
        None => escaped,
    }
}

/// Reads one line from its `cells`: the shipment, or why the line is refused.
fn read_line(line: usize, cells: &[String]) -> Result<Shipment, String> {
    let [order, carrier, tracking] = cells else {
        return Err(format!(
            "A line holds 3 cells (order number, carrier, tracking number); this one has {}.",
            cells.len()
        ));
    };
    for (name, cell) in [("carrier", carrier), ("tracking number", tracking)] {
        if is_formula(cell) {
            let first = cell.trim_start().chars().next().unwrap_or('=');
            return Err(format!(
                "The {name} begins with “{first}”, which a spreadsheet would run as a formula."
            ));
        }
    }
    let number = OrderNumber::parse(order.trim())
        .ok_or_else(|| format!("There is no order {}.", shown(order)))?;
    // Checked as a single move checks them: one line, no bidi controls, a printable ASCII
    // tracking number, bounded lengths.
    let ship = status::checked_shipment(carrier, tracking)
        .map_err(|error| capitalised(&error.to_string()))?;
    Ok(Shipment { line, number, ship })
}

/// Ships each line of `list` that can be shipped, as `by`; every line's outcome, in order.
pub async fn ship_list(
    store: &dyn Store,
    clock: &Clock,
    list: &str,
    by: &str,
    mail: Mailing,
) -> Result<Vec<LineOutcome>, ListError> {
    let list = list.strip_prefix('\u{feff}').unwrap_or(list);
    let lines: Vec<(usize, &str)> = (list.lines().enumerate())
        .map(|(index, text)| (index + 1, text))
        .filter(|(_, text)| !text.trim().is_empty())
        .collect();
    if lines.len() > MAX_LINES {
        return Err(ListError::TooManyLines(lines.len()));
    }
    let Some((_, first)) = lines.first() else {
        return Err(ListError::Empty);
    };
    let delimiter = delimiter(first);
    let mut read: Vec<(usize, String, Result<Shipment, String>)> = Vec::new();
    for (index, (line, text)) in lines.iter().enumerate() {
        let parsed = cells(text, delimiter);
        if index == 0 && parsed.as_deref().is_ok_and(is_heading) {
            continue;
        }
        let order = match parsed.as_deref() {
            Ok([first, ..]) => shown(first),
            _ => "?".to_owned(),
        };
        read.push((
            *line,
            order,
            parsed.and_then(|cells| read_line(*line, &cells)),
        ));
    }
    if read.is_empty() {
        return Err(ListError::Empty);
    }
    // An order named twice: which line is right is the operator's to say.
    let mut lines_of: HashMap<&OrderNumber, Vec<String>> = HashMap::new();
    for (_, _, shipment) in &read {
        if let Ok(shipment) = shipment {
            let lines = lines_of.entry(&shipment.number).or_default();
            lines.push(shipment.line.to_string());
        }
    }
    let mut outcomes = Vec::with_capacity(read.len());
    for (line, order, shipment) in &read {
        let outcome = match shipment {
            Err(why) => Err(why.clone()),
            Ok(shipment) => match &lines_of[&shipment.number] {
                lines if lines.len() > 1 => Err(format!(
                    "Order {} is on lines {}: ship it on one line.",
                    shipment.number,
                    lines.join(", ")
                )),
                _ => ship(store, clock, shipment, by, mail).await,
            },
        };
        outcomes.push(LineOutcome {
            line: *line,
            order: order.clone(),
            outcome,
        });
    }
    Ok(outcomes)
}

/// Ships one line's order; why not, as the report says it.
async fn ship(
    store: &dyn Store,
    clock: &Clock,
    shipment: &Shipment,
    by: &str,
    mail: Mailing,
) -> Result<(), String> {
    let requested = shipment.ship.clone();
    match status::change(store, clock, &shipment.number, requested, by, mail).await {
        Ok(_) => Ok(()),
        Err(MoveError::NoSuchOrder(_)) => Err(format!("There is no order {}.", shipment.number)),
        Err(MoveError::Store(error)) => Err(format!(
            "Not shipped: the store failed ({error}); try this line again."
        )),
        Err(error) => Err(capitalised(&error.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_follow_rfc_4180_quoting() {
        assert_eq!(
            cells(r#"PP-1,"DHL, Express","a""b""#, ',').unwrap(),
            ["PP-1", "DHL, Express", "a\"b"]
        );
        assert_eq!(cells("a;b;;", ';').unwrap(), ["a", "b", "", ""]);
        assert!(cells(r#"a,"b"#, ',').is_err());
        assert_eq!(delimiter("order;carrier;tracking"), ';');
        assert_eq!(delimiter("order\tcarrier"), '\t');
        assert_eq!(delimiter("PP-1,DHL;x,1"), ',');
    }

    #[test]
    fn formulas_and_headings_are_recognised() {
        for cell in ["=HYPERLINK(\"x\")", " +1", "-2", "@SUM(A1)"] {
            assert!(is_formula(cell), "{cell}");
        }
        assert!(!is_formula("Royal Mail"));
        let heading = |line: &str| is_heading(&cells(line, ',').unwrap());
        assert!(heading("Order number,Carrier,Tracking"));
        assert!(heading("order,carrier,tracking"));
        assert!(!heading("PP-7K3M9Q2XH4TD,DHL,1"));
        assert_eq!(shown("a\u{202E}b"), "a\\u{202e}b");
    }
}
