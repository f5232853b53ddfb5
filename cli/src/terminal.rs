//! The terminal: lines read from stdin (by the loop and by the questions a run asks),
//! prompts written to stdout.

use std::future::Future;
use std::io::Write as _;
use std::pin::Pin;
use std::sync::Arc;

use tokio::io::{AsyncBufReadExt as _, BufReader, Lines, Stdin};
use tokio::sync::Mutex;
use toolnexus::{Answer, Request};

/// Stdin, read a line at a time by whoever asks next.
#[derive(Clone)]
pub(crate) struct Terminal {
    lines: Arc<Mutex<Lines<BufReader<Stdin>>>>,
}

impl Terminal {
    pub(crate) fn new() -> Self {
        Terminal {
            lines: Arc::new(Mutex::new(BufReader::new(tokio::io::stdin()).lines())),
        }
    }

    /// Writes `prompt`, then reads a line; `None` at the end of input (Ctrl-D).
    pub(crate) async fn read_line(&self, prompt: &str) -> Option<String> {
        print!("{prompt}");
        let _ = std::io::stdout().flush();
        self.lines.lock().await.next_line().await.ok().flatten()
    }

    /// What answers a run's requests: asks at the terminal.
    pub(crate) fn asker(&self) -> impl Fn(Request) -> Asked + Send + Sync + 'static {
        let terminal = self.clone();
        move |request| {
            let terminal = terminal.clone();
            Box::pin(async move { terminal.ask(request).await })
        }
    }

    /// Asks `request` at the terminal: an approval is `y` or not; a login is done when
    /// Enter is pressed; anything else is answered with the line typed (an empty line,
    /// or the end of input, declines).
    async fn ask(&self, request: Request) -> Answer {
        println!("{}", request.prompt);
        if let Some(url) = &request.url {
            println!("  {url}");
        }
        match request.kind.as_str() {
            "approval" => match self.read_line("Allow? [y/N] ").await {
                Some(line) if matches!(line.trim(), "y" | "Y" | "yes") => {
                    Answer::accept(&request.id)
                }
                _ => request.decline("declined"),
            },
            "authorization" => match self.read_line("Press Enter when done. ").await {
                Some(_) => Answer::accept(&request.id),
                None => request.decline("declined"),
            },
            _ => match self.read_line("? ").await {
                Some(line) if !line.trim().is_empty() => request.answer(line.trim()),
                _ => request.decline("declined"),
            },
        }
    }
}

/// The answer an asker gives, on its way.
pub(crate) type Asked = Pin<Box<dyn Future<Output = Answer> + Send>>;
