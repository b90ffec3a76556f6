//! A 3×5 bitmap font for time-code labels: tiny-skia draws no text, and a label needs
//! only digits, a point and a minus sign.

/// Rows of one glyph, top first; bit 2 is the left column.
fn glyph(c: char) -> Option<[u8; 5]> {
    Some(match c {
        '0' => [0b111, 0b101, 0b101, 0b101, 0b111],
        '1' => [0b010, 0b110, 0b010, 0b010, 0b111],
        '2' => [0b111, 0b001, 0b111, 0b100, 0b111],
        '3' => [0b111, 0b001, 0b111, 0b001, 0b111],
        '4' => [0b101, 0b101, 0b111, 0b001, 0b001],
        '5' => [0b111, 0b100, 0b111, 0b001, 0b111],
        '6' => [0b111, 0b100, 0b111, 0b101, 0b111],
        '7' => [0b111, 0b001, 0b010, 0b010, 0b010],
        '8' => [0b111, 0b101, 0b111, 0b101, 0b111],
        '9' => [0b111, 0b101, 0b111, 0b001, 0b111],
        '.' => [0b000, 0b000, 0b000, 0b000, 0b010],
        '-' => [0b000, 0b000, 0b111, 0b000, 0b000],
        _ => return None,
    })
}

/// The cells (column, row) to fill for `text`, glyphs 4 cells apart; characters the
/// font lacks are left blank.
pub(crate) fn cells(text: &str) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for (i, c) in text.chars().enumerate() {
        let Some(rows) = glyph(c) else { continue };
        for (row, bits) in rows.iter().enumerate() {
            for col in 0..3 {
                if bits & (0b100 >> col) != 0 {
                    out.push((i as u32 * 4 + col, row as u32));
                }
            }
        }
    }
    out
}

/// A time code as a short label: integers without a fraction, others to two places.
pub(crate) fn time_label(time: f64) -> String {
    if time.fract() == 0.0 && time.abs() < 1e15 {
        format!("{time:.0}")
    } else {
        let s = format!("{time:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_short() {
        assert_eq!(time_label(24.0), "24");
        assert_eq!(time_label(-3.0), "-3");
        assert_eq!(time_label(12.5), "12.5");
        assert_eq!(time_label(1.0 / 3.0), "0.33");
    }

    #[test]
    fn every_label_character_has_a_glyph() {
        for c in "0123456789.-".chars() {
            assert!(glyph(c).is_some_and(|g| g.iter().any(|&r| r != 0)), "{c}");
        }
        // "1" is 8 cells; the second glyph starts 4 columns on.
        assert_eq!(cells("1").len(), 8);
        assert!(cells("11").iter().any(|&(x, _)| x >= 4));
    }
}
