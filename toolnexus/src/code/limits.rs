//! [`Limits`]: what one script may use of the host.

use std::time::Duration;

/// The bounds one script runs within. A script that reaches one is stopped (the
/// interpreter raises an exception no `catch` can hold) and the model gets a tool error
/// naming the limit and the line.
///
/// ```
/// use std::time::Duration;
/// use toolnexus::code::Limits;
///
/// let limits = Limits::default()
///     .time(Duration::from_millis(500))
///     .memory(16 << 20)
///     .calls(50);
/// assert_eq!(limits.time_limit(), Duration::from_millis(500));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    time: Duration,
    memory: usize,
    stack: usize,
    steps: u64,
    calls: usize,
    output: usize,
}

/// How many operations QuickJS runs between two checks of its interrupt handler, where
/// time and steps are counted.
pub(crate) const OPS_PER_CHECK: u64 = 10_000;

impl Default for Limits {
    /// 2 s of interpreter time, 64 MiB of heap, 256 KiB of stack, 50 million steps, 200
    /// tool calls and 64 KiB of printed output per script.
    fn default() -> Self {
        Limits {
            time: Duration::from_secs(2),
            memory: 64 << 20,
            stack: 256 << 10,
            steps: 50_000_000,
            calls: 200,
            output: 64 << 10,
        }
    }
}

impl Limits {
    /// The interpreter time a script may take: the time it spends running, not the time
    /// it waits for the toolkit's calls (each call has the timeout the app gives tools).
    #[must_use]
    pub fn time(mut self, time: Duration) -> Self {
        self.time = time;
        self
    }

    /// The most heap the interpreter may allocate, in bytes.
    #[must_use]
    pub fn memory(mut self, bytes: usize) -> Self {
        self.memory = bytes;
        self
    }

    /// The most stack the script may use, in bytes: what bounds recursion.
    #[must_use]
    pub fn stack(mut self, bytes: usize) -> Self {
        self.stack = bytes;
        self
    }

    /// The most steps (bytecode operations, counted in QuickJS's interrupt checks, one
    /// check per 10 000 operations) a script may run.
    #[must_use]
    pub fn steps(mut self, steps: u64) -> Self {
        self.steps = steps;
        self
    }

    /// The most tool calls one script may make.
    #[must_use]
    pub fn calls(mut self, calls: usize) -> Self {
        self.calls = calls;
        self
    }

    /// The most bytes of `console.log` / `print` output kept; the rest is cut, and the
    /// output says so.
    #[must_use]
    pub fn output(mut self, bytes: usize) -> Self {
        self.output = bytes;
        self
    }

    /// The interpreter time limit.
    pub fn time_limit(&self) -> Duration {
        self.time
    }

    /// The heap limit, in bytes.
    pub fn memory_limit(&self) -> usize {
        self.memory
    }

    /// The stack limit, in bytes.
    pub fn stack_limit(&self) -> usize {
        self.stack
    }

    /// The step limit.
    pub fn step_limit(&self) -> u64 {
        self.steps
    }

    /// The tool-call limit.
    pub fn call_limit(&self) -> usize {
        self.calls
    }

    /// The output limit, in bytes.
    pub fn output_limit(&self) -> usize {
        self.output
    }
}
