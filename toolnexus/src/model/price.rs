//! The [`Price`] of a model's tokens, and the [`PriceTable`] a client prices turns with
//! (with the providers' list prices shipped as its default), in [`Cost`]s.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::cost::Cost;
use crate::model::usage::Usage;

/// What a model's tokens cost, in US dollars per million tokens, by kind (see
/// [`Usage`]'s fields): prompt tokens not from the cache, prompt tokens read from the
/// cache, prompt tokens written to it, reasoning tokens, and the rest of the completion.
///
/// ```
/// use toolnexus::Usage;
/// use toolnexus::model::{Cost, Price};
///
/// let price = Price::new(3.0, 15.0).with_cache(0.30, 3.75);
/// // 1,000 prompt tokens of which 800 read from the cache; 100 written.
/// let usage = Usage::new(1_000, 100).with_cache(800, 0);
/// assert_eq!(price.cost(&usage), Cost::from_usd(200.0 * 3e-6 + 800.0 * 0.3e-6 + 100.0 * 15e-6));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Price {
    /// Prompt tokens not read from the cache.
    pub input: f64,
    /// Prompt tokens read from the cache.
    pub cached_input: f64,
    /// Prompt tokens written to the cache.
    pub cache_write: f64,
    /// Completion tokens spent reasoning.
    pub reasoning: f64,
    /// Other completion tokens.
    pub output: f64,
}

impl Price {
    /// `input` and `output` dollars per million tokens; cache reads and writes at the
    /// input price, reasoning at the output price, until set otherwise.
    pub fn new(input: f64, output: f64) -> Price {
        Price {
            input,
            cached_input: input,
            cache_write: input,
            reasoning: output,
            output,
        }
    }

    /// Sets the prices of prompt tokens read from and written to the cache.
    #[must_use]
    pub fn with_cache(mut self, read: f64, write: f64) -> Price {
        self.cached_input = read;
        self.cache_write = write;
        self
    }

    /// Sets the price of reasoning tokens.
    #[must_use]
    pub fn with_reasoning(mut self, reasoning: f64) -> Price {
        self.reasoning = reasoning;
        self
    }

    /// What `usage` costs at this price.
    pub fn cost(&self, usage: &Usage) -> Cost {
        let cached = usage.cache_read_tokens;
        let written = usage.cache_write_tokens;
        let fresh = usage.prompt_tokens.saturating_sub(cached + written);
        let reasoning = usage.reasoning_tokens.min(usage.completion_tokens);
        let output = usage.completion_tokens - reasoning;
        let micro = fresh as f64 * self.input
            + cached as f64 * self.cached_input
            + written as f64 * self.cache_write
            + reasoning as f64 * self.reasoning
            + output as f64 * self.output;
        Cost::from_usd(micro / 1e6)
    }
}

/// The date of the list prices in [`PriceTable::list_prices`].
pub const LIST_PRICES_DATE: &str = "2025-11-24";

/// Prices by model, for a [`Client`](crate::Client) to put a [`Cost`] on each turn's [`Usage`] (see
/// [`Client::prices`](crate::Client::prices)).
///
/// A turn is priced by the model that answered it ([`Reply::model`](crate::model::Reply::model), `provider/model`):
/// the entry named exactly so, else the longest entry its model name starts with (so
/// `claude-sonnet-4-5` prices `claude-sonnet-4-5-20250929`), else the longest that
/// follows a `.` in it (Bedrock's `us.anthropic.claude-…`). A model with no entry costs
/// nothing (its turns' `cost` stays `None`) and is logged once.
///
/// [`list_prices`](PriceTable::list_prices) (the [`Default`]) ships the list prices the
/// providers published for their current models, as of [`LIST_PRICES_DATE`]: standard
/// tier, prompts under 200k tokens, Anthropic's 5-minute cache writes. They change:
/// [`with`](PriceTable::with) overrides an entry or adds one (an Azure deployment, a
/// negotiated rate).
///
/// ```
/// use toolnexus::Usage;
/// use toolnexus::model::{Cost, Price, PriceTable};
///
/// let table = PriceTable::default().with("my-azure-deployment", Price::new(2.0, 8.0));
/// let usage = Usage::new(1_000_000, 0);
/// assert_eq!(table.cost("anthropic/claude-sonnet-4-5-20250929", &usage), Some(Cost::from_usd(3.0)));
/// assert_eq!(table.cost("my-azure-deployment", &usage), Some(Cost::from_usd(2.0)));
/// assert_eq!(table.cost("unknown-model", &usage), None);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceTable {
    prices: BTreeMap<String, Price>,
}

impl Default for PriceTable {
    fn default() -> Self {
        PriceTable::list_prices()
    }
}

impl PriceTable {
    /// A table with no prices.
    pub fn empty() -> PriceTable {
        PriceTable {
            prices: BTreeMap::new(),
        }
    }

    /// The providers' list prices for the models this crate speaks to, as of
    /// [`LIST_PRICES_DATE`] (USD per million tokens).
    pub fn list_prices() -> PriceTable {
        let openai = |input: f64, cached: f64, output: f64| {
            Price::new(input, output).with_cache(cached, input)
        };
        let anthropic = |input: f64, output: f64| {
            Price::new(input, output).with_cache(input * 0.1, input * 1.25)
        };
        let gemini = |input: f64, cached: f64, output: f64| {
            Price::new(input, output).with_cache(cached, input)
        };
        let entries = [
            ("gpt-5.1", openai(1.25, 0.125, 10.0)),
            ("gpt-5", openai(1.25, 0.125, 10.0)),
            ("gpt-5-mini", openai(0.25, 0.025, 2.0)),
            ("gpt-5-nano", openai(0.05, 0.005, 0.40)),
            ("gpt-4.1", openai(2.0, 0.50, 8.0)),
            ("gpt-4.1-mini", openai(0.40, 0.10, 1.60)),
            ("gpt-4.1-nano", openai(0.10, 0.025, 0.40)),
            ("gpt-4o", openai(2.50, 1.25, 10.0)),
            ("gpt-4o-mini", openai(0.15, 0.075, 0.60)),
            ("o3", openai(2.0, 0.50, 8.0)),
            ("o3-mini", openai(1.10, 0.55, 4.40)),
            ("o4-mini", openai(1.10, 0.275, 4.40)),
            ("claude-opus-4-5", anthropic(5.0, 25.0)),
            ("claude-opus-4-1", anthropic(15.0, 75.0)),
            ("claude-opus-4", anthropic(15.0, 75.0)),
            ("claude-sonnet-4-5", anthropic(3.0, 15.0)),
            ("claude-sonnet-4", anthropic(3.0, 15.0)),
            ("claude-3-7-sonnet", anthropic(3.0, 15.0)),
            ("claude-haiku-4-5", anthropic(1.0, 5.0)),
            ("claude-3-5-haiku", anthropic(0.80, 4.0)),
            ("gemini-3-pro-preview", gemini(2.0, 0.20, 12.0)),
            ("gemini-2.5-pro", gemini(1.25, 0.125, 10.0)),
            ("gemini-2.5-flash", gemini(0.30, 0.03, 2.50)),
            ("gemini-2.5-flash-lite", gemini(0.10, 0.01, 0.40)),
            ("gemini-2.0-flash", gemini(0.10, 0.025, 0.40)),
        ];
        PriceTable {
            prices: entries
                .into_iter()
                .map(|(name, price)| (name.to_owned(), price))
                .collect(),
        }
    }

    /// Sets the price of `model` (a model name, or `provider/model`).
    #[must_use]
    pub fn with(mut self, model: impl Into<String>, price: Price) -> PriceTable {
        self.prices.insert(model.into(), price);
        self
    }

    /// The price of `model` (`provider/model` or a model name), by the rule above.
    pub fn price(&self, model: &str) -> Option<&Price> {
        if let Some(price) = self.prices.get(model) {
            return Some(price);
        }
        let name = model.rsplit_once('/').map_or(model, |(_, name)| name);
        let longest = |matches: &dyn Fn(&str) -> bool| {
            (self.prices.iter())
                .filter(|(key, _)| matches(key))
                .max_by_key(|(key, _)| key.len())
                .map(|(_, price)| price)
        };
        longest(&|key| name.starts_with(key))
            .or_else(|| longest(&|key| name.contains(&format!(".{key}"))))
    }

    /// What `usage` cost on `model`, when the table has its price.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<Cost> {
        self.price(model).map(|price| price.cost(usage))
    }
}
