//! JSON text as Python's `json.dumps` writes it by default (`", "` and `": "` between
//! items, every character outside printable ASCII escaped, floats as `repr` gives them),
//! so a `question` answer reaches the model byte for byte as from the Python port.

use std::io::{self, Write};

use serde::Serialize as _;
use serde_json::Value;
use serde_json::ser::Formatter;

struct Python;

/// `", "` before every item of an array or an object but the first.
fn item_separator<W: ?Sized + Write>(writer: &mut W, first: bool) -> io::Result<()> {
    if first {
        Ok(())
    } else {
        writer.write_all(b", ")
    }
}

impl Formatter for Python {
    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        item_separator(writer, first)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        item_separator(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        writer.write_all(b": ")
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        for c in fragment.chars() {
            if (' '..='~').contains(&c) {
                writer.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }

    fn write_f64<W: ?Sized + Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(float_repr(value).as_bytes())
    }
}

/// `value` as `json.dumps(value)` writes it.
pub(super) fn dumps(value: &Value) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, Python);
    // Writing a `Value` into memory cannot fail.
    let _ = value.serialize(&mut serializer);
    String::from_utf8(out).unwrap_or_default()
}

/// A finite float as Python's `repr`: the shortest digits that read back the same, in
/// positional form for exponents from -4 to 15 (with `.0` when whole), else as
/// `d.ddde+XX`.
fn float_repr(value: f64) -> String {
    let sci = format!("{value:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-4..16).contains(&exponent) {
        let (head, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{head}{fraction}e{exp_sign}{:02}", exponent.abs());
    }
    let point = exponent + 1;
    let text = if point <= 0 {
        format!("0.{}{digits}", "0".repeat(point.unsigned_abs() as usize))
    } else {
        let point = point as usize;
        if digits.len() <= point {
            format!("{digits}{}.0", "0".repeat(point - digits.len()))
        } else {
            format!("{}.{}", &digits[..point], &digits[point..])
        }
    };
    format!("{sign}{text}")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn floats_as_python_repr() {
        for (value, repr) in [
            (1.0, "1.0"),
            (0.5, "0.5"),
            (-2.25, "-2.25"),
            (1e16, "1e+16"),
            (1.5e-7, "1.5e-07"),
            (0.0001, "0.0001"),
            (123456789012345.6, "123456789012345.6"),
            (1e15, "1000000000000000.0"),
            (0.0, "0.0"),
        ] {
            assert_eq!(float_repr(value), repr, "{value}");
        }
    }

    #[test]
    fn dumps_as_python() {
        let value = json!({"a": [1, 2.5, "é", null, true], "b": {"c": "x\"\n"}});
        assert_eq!(
            dumps(&value),
            r#"{"a": [1, 2.5, "\u00e9", null, true], "b": {"c": "x\"\n"}}"#
        );
        assert_eq!(dumps(&json!("😀")), r#""\ud83d\ude00""#);
    }
}
