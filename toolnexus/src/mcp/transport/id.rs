//! The top-level `id` of a JSON-RPC message, found by a lenient scan: the text may be
//! cut short, hold invalid UTF-8 or escapes serde refuses; only the id's own token has to
//! be well formed. The stdio codec feeds an over-long line through it piece by piece; the
//! JSON-RPC checks of both transports scan a whole message with [`find_id`].

use rmcp::model::{NumberOrString, RequestId};

/// The longest `id` value kept while scanning; a longer one is not trusted as an id (the
/// message is answered with `"id": null`).
const MAX_ID_BYTES: usize = 1024;

/// Where an [`IdScan`] is in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Scanning {
    /// Between tokens.
    #[default]
    Outside,
    /// In a string; `key` while it may still be the top-level key `"id"` (its bytes so
    /// far are a prefix of `id`), with that many bytes seen.
    InString { escaped: bool, key: Option<u8> },
    /// After the top-level key `"id"`, before its `:`.
    AfterKey,
    /// After `"id":`, before the value.
    BeforeValue,
    /// In the value of the top-level `id`, a string (its bytes are kept).
    IdString { escaped: bool },
    /// In the value of the top-level `id`, a number (its bytes are kept).
    IdNumber,
    /// The id is found (or can no longer be): the rest of the text is skipped.
    Done,
}

/// A streaming search for the top-level `"id"` of a JSON object: tracks nesting depth and
/// strings, keeps only the bytes of the id's value (at most [`MAX_ID_BYTES`]). Lenient:
/// the text may be cut short or malformed elsewhere; only the id's own token has to be
/// well formed.
#[derive(Debug, Default)]
pub(crate) struct IdScan {
    state: Scanning,
    depth: usize,
    value: Vec<u8>,
    id: Option<RequestId>,
}

impl IdScan {
    /// Scans the next part of the text.
    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            i += 1;
            self.state = match self.state {
                Scanning::Done => return,
                Scanning::Outside => match byte {
                    b'{' | b'[' => {
                        self.depth += 1;
                        Scanning::Outside
                    }
                    b'}' | b']' => {
                        self.depth = self.depth.saturating_sub(1);
                        Scanning::Outside
                    }
                    b'"' => Scanning::InString {
                        escaped: false,
                        key: (self.depth == 1).then_some(0),
                    },
                    _ => Scanning::Outside,
                },
                Scanning::InString { escaped: true, .. } => Scanning::InString {
                    escaped: false,
                    key: None,
                },
                Scanning::InString {
                    escaped: false,
                    key,
                } => match (byte, key) {
                    (b'"', Some(2)) => Scanning::AfterKey,
                    (b'"', _) => Scanning::Outside,
                    (b'\\', _) => Scanning::InString {
                        escaped: true,
                        key: None,
                    },
                    (b'i', Some(0)) => Scanning::InString {
                        escaped: false,
                        key: Some(1),
                    },
                    (b'd', Some(1)) => Scanning::InString {
                        escaped: false,
                        key: Some(2),
                    },
                    _ => {
                        // Skip to the end of the string or the next escape at once.
                        let rest = &bytes[i..];
                        let skip = rest
                            .iter()
                            .position(|b| *b == b'"' || *b == b'\\')
                            .unwrap_or(rest.len());
                        i += skip;
                        Scanning::InString {
                            escaped: false,
                            key: None,
                        }
                    }
                },
                Scanning::AfterKey => match byte {
                    b':' => Scanning::BeforeValue,
                    b if b.is_ascii_whitespace() => Scanning::AfterKey,
                    // A string value `"id"` followed by `,` or `}`: not the key.
                    _ => {
                        i -= 1;
                        Scanning::Outside
                    }
                },
                Scanning::BeforeValue => match byte {
                    b if b.is_ascii_whitespace() => Scanning::BeforeValue,
                    b'"' => {
                        self.value.push(b'"');
                        Scanning::IdString { escaped: false }
                    }
                    b'-' | b'0'..=b'9' => {
                        self.value.push(byte);
                        Scanning::IdNumber
                    }
                    // `null`, an object, an array: not an id a response can carry.
                    _ => Scanning::Done,
                },
                Scanning::IdString { escaped } => {
                    self.keep(byte);
                    match (byte, escaped) {
                        (b'"', false) => {
                            self.id = serde_json::from_slice::<String>(&self.value)
                                .ok()
                                .map(|text| NumberOrString::String(text.into()));
                            Scanning::Done
                        }
                        (b'\\', false) => Scanning::IdString { escaped: true },
                        _ => Scanning::IdString { escaped: false },
                    }
                }
                Scanning::IdNumber => match byte {
                    b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E' => {
                        self.keep(byte);
                        Scanning::IdNumber
                    }
                    _ => {
                        self.id = std::str::from_utf8(&self.value)
                            .ok()
                            .and_then(|text| text.parse().ok())
                            .map(NumberOrString::Number);
                        Scanning::Done
                    }
                },
            };
            if self.value.len() > MAX_ID_BYTES {
                self.value = Vec::new();
                self.state = Scanning::Done;
            }
        }
    }

    fn keep(&mut self, byte: u8) {
        self.value.push(byte);
    }

    /// The id found, if any. A number cut short by the end of the text is not trusted.
    pub(crate) fn finish(self) -> Option<RequestId> {
        self.id
    }
}

/// The top-level `id` of a whole text (see [`IdScan`]).
pub(crate) fn find_id(bytes: &[u8]) -> Option<RequestId> {
    let mut scan = IdScan::default();
    scan.feed(bytes);
    scan.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scan_gives_the_same_id_however_the_text_is_split() {
        let texts: [(&[u8], Option<RequestId>); 6] = [
            (
                br#"{"jsonrpc":"2.0","params":{"id":9,"s":"}\"{"},"id":7}"#,
                Some(NumberOrString::Number(7)),
            ),
            (
                br#"{ "id" : -12 , "x": 1}"#,
                Some(NumberOrString::Number(-12)),
            ),
            (
                br#"{"a":"id","b":["id",{"id":1}],"id":"\u0041"}"#,
                Some(NumberOrString::String("A".into())),
            ),
            (br#"{"id":null,"method":"m"}"#, None),
            (br#"{"id":1.5}"#, None),
            (br#"{"idx":1,"xid":2}"#, None),
        ];
        for (text, expected) in texts {
            assert_eq!(find_id(text), expected, "{}", String::from_utf8_lossy(text));
            for at in 0..text.len() {
                let mut scan = IdScan::default();
                scan.feed(&text[..at]);
                scan.feed(&text[at..]);
                assert_eq!(scan.finish(), expected, "split at {at}");
            }
        }
    }
}
