//! Code 128 (ISO/IEC 15417), code set B: printable ASCII as bars a hand scanner reads. The
//! job ticket carries its order number so, and a scan at the press finds the order.

/// Element widths (bar, space, bar, space, bar, space) in modules of symbol values 0 to 105,
/// as the standard's table lists them; each symbol is 11 modules wide.
const SYMBOLS: [[u8; 6]; 106] = [
    [2, 1, 2, 2, 2, 2],
    [2, 2, 2, 1, 2, 2],
    [2, 2, 2, 2, 2, 1],
    [1, 2, 1, 2, 2, 3],
    [1, 2, 1, 3, 2, 2],
    [1, 3, 1, 2, 2, 2],
    [1, 2, 2, 2, 1, 3],
    [1, 2, 2, 3, 1, 2],
    [1, 3, 2, 2, 1, 2],
    [2, 2, 1, 2, 1, 3],
    [2, 2, 1, 3, 1, 2],
    [2, 3, 1, 2, 1, 2],
    [1, 1, 2, 2, 3, 2],
    [1, 2, 2, 1, 3, 2],
    [1, 2, 2, 2, 3, 1],
    [1, 1, 3, 2, 2, 2],
    [1, 2, 3, 1, 2, 2],
    [1, 2, 3, 2, 2, 1],
    [2, 2, 3, 2, 1, 1],
    [2, 2, 1, 1, 3, 2],
    [2, 2, 1, 2, 3, 1],
    [2, 1, 3, 2, 1, 2],
    [2, 2, 3, 1, 1, 2],
    [3, 1, 2, 1, 3, 1],
    [3, 1, 1, 2, 2, 2],
    [3, 2, 1, 1, 2, 2],
    [3, 2, 1, 2, 2, 1],
    [3, 1, 2, 2, 1, 2],
    [3, 2, 2, 1, 1, 2],
    [3, 2, 2, 2, 1, 1],
    [2, 1, 2, 1, 2, 3],
    [2, 1, 2, 3, 2, 1],
    [2, 3, 2, 1, 2, 1],
    [1, 1, 1, 3, 2, 3],
    [1, 3, 1, 1, 2, 3],
    [1, 3, 1, 3, 2, 1],
    [1, 1, 2, 3, 1, 3],
    [1, 3, 2, 1, 1, 3],
    [1, 3, 2, 3, 1, 1],
    [2, 1, 1, 3, 1, 3],
    [2, 3, 1, 1, 1, 3],
    [2, 3, 1, 3, 1, 1],
    [1, 1, 2, 1, 3, 3],
    [1, 1, 2, 3, 3, 1],
    [1, 3, 2, 1, 3, 1],
    [1, 1, 3, 1, 2, 3],
    [1, 1, 3, 3, 2, 1],
    [1, 3, 3, 1, 2, 1],
    [3, 1, 3, 1, 2, 1],
    [2, 1, 1, 3, 3, 1],
    [2, 3, 1, 1, 3, 1],
    [2, 1, 3, 1, 1, 3],
    [2, 1, 3, 3, 1, 1],
    [2, 1, 3, 1, 3, 1],
    [3, 1, 1, 1, 2, 3],
    [3, 1, 1, 3, 2, 1],
    [3, 3, 1, 1, 2, 1],
    [3, 1, 2, 1, 1, 3],
    [3, 1, 2, 3, 1, 1],
    [3, 3, 2, 1, 1, 1],
    [3, 1, 4, 1, 1, 1],
    [2, 2, 1, 4, 1, 1],
    [4, 3, 1, 1, 1, 1],
    [1, 1, 1, 2, 2, 4],
    [1, 1, 1, 4, 2, 2],
    [1, 2, 1, 1, 2, 4],
    [1, 2, 1, 4, 2, 1],
    [1, 4, 1, 1, 2, 2],
    [1, 4, 1, 2, 2, 1],
    [1, 1, 2, 2, 1, 4],
    [1, 1, 2, 4, 1, 2],
    [1, 2, 2, 1, 1, 4],
    [1, 2, 2, 4, 1, 1],
    [1, 4, 2, 1, 1, 2],
    [1, 4, 2, 2, 1, 1],
    [2, 4, 1, 2, 1, 1],
    [2, 2, 1, 1, 1, 4],
    [4, 1, 3, 1, 1, 1],
    [2, 4, 1, 1, 1, 2],
    [1, 3, 4, 1, 1, 1],
    [1, 1, 1, 2, 4, 2],
    [1, 2, 1, 1, 4, 2],
    [1, 2, 1, 2, 4, 1],
    [1, 1, 4, 2, 1, 2],
    [1, 2, 4, 1, 1, 2],
    [1, 2, 4, 2, 1, 1],
    [4, 1, 1, 2, 1, 2],
    [4, 2, 1, 1, 1, 2],
    [4, 2, 1, 2, 1, 1],
    [2, 1, 2, 1, 4, 1],
    [2, 1, 4, 1, 2, 1],
    [4, 1, 2, 1, 2, 1],
    [1, 1, 1, 1, 4, 3],
    [1, 1, 1, 3, 4, 1],
    [1, 3, 1, 1, 4, 1],
    [1, 1, 4, 1, 1, 3],
    [1, 1, 4, 3, 1, 1],
    [4, 1, 1, 1, 1, 3],
    [4, 1, 1, 3, 1, 1],
    [1, 1, 3, 1, 4, 1],
    [1, 1, 4, 1, 3, 1],
    [3, 1, 1, 1, 4, 1],
    [4, 1, 1, 1, 3, 1],
    [2, 1, 1, 4, 1, 2],
    [2, 1, 1, 2, 1, 4],
    [2, 1, 1, 2, 3, 2],
];
/// Symbol value of Start B.
const START_B: usize = 104;
/// The stop pattern: 13 modules, ending in the termination bar.
const STOP: [u8; 7] = [2, 3, 3, 1, 1, 1, 2];
/// The light margin each side, in modules (the standard asks for at least 10).
pub const QUIET_ZONE: u32 = 10;
/// Longest value a ticket's barcode carries.
pub const MAX_CHARS: usize = 40;

/// `value`'s symbol as alternating bar and space widths in modules, first a bar, without the
/// quiet zones. Code set B: characters 32 to 127 only.
pub fn encode(value: &str) -> Result<Vec<u8>, String> {
    if value.is_empty() || value.chars().count() > MAX_CHARS {
        return Err(format!("a barcode holds 1 to {MAX_CHARS} characters"));
    }
    let mut values = Vec::with_capacity(value.len() + 3);
    values.push(START_B);
    for c in value.chars() {
        match c as u32 {
            code @ 32..=127 => values.push(code as usize - 32),
            _ => return Err(format!("{c:?} is not in Code 128's code set B")),
        }
    }
    // The check symbol: the start's value plus each symbol's value times its position.
    let weighted: usize = values
        .iter()
        .enumerate()
        .map(|(position, value)| position.max(1) * value)
        .sum();
    values.push(weighted % 103);
    let mut widths: Vec<u8> = values.iter().flat_map(|value| SYMBOLS[*value]).collect();
    widths.extend(STOP);
    Ok(widths)
}

/// Modules of a symbol of `widths`, without the quiet zones.
pub fn modules(widths: &[u8]) -> u32 {
    widths.iter().map(|w| u32::from(*w)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_symbol_is_eleven_modules_of_three_bars_and_the_stop_is_thirteen() {
        for (value, symbol) in SYMBOLS.iter().enumerate() {
            assert_eq!(modules(symbol), 11, "symbol {value}");
            // Bars (even places) take an even number of modules: the standard's parity.
            let bars: u8 = symbol.iter().step_by(2).sum();
            assert_eq!(bars % 2, 0, "symbol {value}");
        }
        assert_eq!(modules(&STOP), 13);
        let distinct: std::collections::HashSet<_> = SYMBOLS.iter().collect();
        assert_eq!(distinct.len(), SYMBOLS.len());
    }

    #[test]
    fn a_value_is_start_data_check_and_stop() {
        let widths = encode("PP-7").unwrap();
        // Start, four characters, the check symbol, the stop.
        assert_eq!(modules(&widths), 11 * 6 + 13);
        assert_eq!(&widths[..6], &SYMBOLS[START_B]);
        // 104 + 1·48 + 2·48 + 3·13 + 4·23 = 379; 379 mod 103 = 70.
        assert_eq!(&widths[widths.len() - 13..widths.len() - 7], &SYMBOLS[70]);
        assert!(encode("").is_err());
        assert!(encode("PP-é").unwrap_err().contains("code set B"));
        assert!(encode(&"1".repeat(MAX_CHARS + 1)).is_err());
    }
}
