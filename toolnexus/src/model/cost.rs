//! Money: [`Cost`], an amount in US dollars that adds up exactly.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An amount of money in US dollars, kept as whole nano-dollars (10⁻⁹ USD) so that it
/// adds up exactly. Serialized as a number of dollars.
///
/// ```
/// use toolnexus::model::Cost;
///
/// let cost = Cost::from_usd(0.0125);
/// assert_eq!(cost.nano_usd(), 12_500_000);
/// assert_eq!((cost + cost).usd(), 0.025);
/// assert_eq!(cost.to_string(), "$0.012500");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cost(u64);

impl Cost {
    /// Nothing.
    pub const ZERO: Cost = Cost(0);

    /// `usd` dollars, rounded to the nano-dollar (negative amounts are zero).
    pub fn from_usd(usd: f64) -> Cost {
        Cost((usd * 1e9).round().max(0.0) as u64)
    }

    /// `nano` nano-dollars.
    pub fn from_nano_usd(nano: u64) -> Cost {
        Cost(nano)
    }

    /// In dollars.
    pub fn usd(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// In nano-dollars.
    pub fn nano_usd(self) -> u64 {
        self.0
    }
}

impl std::ops::Add for Cost {
    type Output = Cost;

    fn add(self, other: Cost) -> Cost {
        Cost(self.0.saturating_add(other.0))
    }
}

impl std::ops::AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        *self = *self + other;
    }
}

impl fmt::Display for Cost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "${:.6}", self.usd())
    }
}

impl Serialize for Cost {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.usd())
    }
}

impl<'de> Deserialize<'de> for Cost {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        f64::deserialize(deserializer).map(Cost::from_usd)
    }
}
