//! [`Usage`]: the tokens a turn, a run or a tree of agents cost.

use std::iter::Sum;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

use crate::model::cost::Cost;

/// Tokens spent: in the prompt, and in the completion, with the parts of each the
/// providers report on their own (read from or written to their prompt cache, spent
/// reasoning). Adds up across turns, runs, and agents called as tools.
///
/// `prompt_tokens` counts the whole prompt, cached parts included, and
/// `completion_tokens` the whole completion, reasoning included: the three details are
/// parts of those totals, never extra. A detail the provider does not report is 0.
///
/// Its JSON carries `total_tokens` (prompt plus completion) beside the two counts, as the
/// contract's `usage` does; reading JSON ignores it (the total is always the sum).
///
/// ```
/// use toolnexus::Usage;
///
/// let total: Usage = [Usage::new(10, 2), Usage::new(15, 3)].into_iter().sum();
/// assert_eq!(total, Usage::new(25, 5));
/// assert_eq!(total.total_tokens(), 30);
///
/// let cached = Usage::new(1_000, 50).with_cache(900, 0).with_reasoning(20);
/// assert_eq!((cached + cached).cache_read_tokens, 1_800);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
pub struct Usage {
    /// Tokens read (the transcript and the tool list), cached ones included.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Tokens written, reasoning included.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Of the prompt, the tokens read from the provider's prompt cache (OpenAI
    /// `cached_tokens`, Anthropic `cache_read_input_tokens`, Gemini
    /// `cachedContentTokenCount`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Of the prompt, the tokens written to the provider's prompt cache (Anthropic
    /// `cache_creation_input_tokens`, OpenAI Responses `cache_write_tokens`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Of the completion, the tokens spent reasoning (OpenAI `reasoning_tokens`, Anthropic
    /// `output_tokens_details.thinking_tokens`, Gemini `thoughtsTokenCount`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// What the tokens cost, for a client that [prices](crate::Client::prices) its turns
    /// (see [`PriceTable`](crate::model::PriceTable)); `None` when no turn had a price.
    /// Adds up as the tokens do (a priced usage plus an unpriced one is the priced one's
    /// cost).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// [`Usage`]'s JSON form: its fields, with `total_tokens` after the two counts.
#[derive(Serialize)]
struct UsageForm<'a> {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    cache_read_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    cache_write_tokens: u64,
    #[serde(skip_serializing_if = "is_zero")]
    reasoning_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    cost: Option<&'a Cost>,
}

impl Serialize for Usage {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        UsageForm {
            prompt_tokens: self.prompt_tokens,
            completion_tokens: self.completion_tokens,
            total_tokens: self.total_tokens(),
            cache_read_tokens: self.cache_read_tokens,
            cache_write_tokens: self.cache_write_tokens,
            reasoning_tokens: self.reasoning_tokens,
            cost: self.cost.as_ref(),
        }
        .serialize(serializer)
    }
}

impl Usage {
    /// A usage of `prompt_tokens` read and `completion_tokens` written.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Usage {
            prompt_tokens,
            completion_tokens,
            ..Usage::default()
        }
    }

    /// Sets the prompt tokens read from and written to the provider's cache.
    #[must_use]
    pub fn with_cache(mut self, read: u64, write: u64) -> Self {
        self.cache_read_tokens = read;
        self.cache_write_tokens = write;
        self
    }

    /// Sets the completion tokens spent reasoning.
    #[must_use]
    pub fn with_reasoning(mut self, tokens: u64) -> Self {
        self.reasoning_tokens = tokens;
        self
    }

    /// Read plus written.
    pub fn total_tokens(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

impl Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens.saturating_add(other.prompt_tokens),
            completion_tokens: self
                .completion_tokens
                .saturating_add(other.completion_tokens),
            cache_read_tokens: self
                .cache_read_tokens
                .saturating_add(other.cache_read_tokens),
            cache_write_tokens: self
                .cache_write_tokens
                .saturating_add(other.cache_write_tokens),
            reasoning_tokens: self.reasoning_tokens.saturating_add(other.reasoning_tokens),
            cost: match (self.cost, other.cost) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            },
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

impl Sum for Usage {
    fn sum<I: Iterator<Item = Usage>>(iter: I) -> Usage {
        iter.fold(Usage::default(), Add::add)
    }
}
