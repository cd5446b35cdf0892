//! `locksim-models check MODEL [--set key=value]... [--json]`: checks a model exhaustively and
//! prints, per property, whether it holds or the path that breaks it (a progress line on stderr
//! each second of a longer check). `locksim-models list` names the models and their
//! parameters. Bad input exits 2.

use clap::{Parser, Subcommand};
use locksim_models::settings::Settings;
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "locksim-models", about = "Model-check locksim's lock recipes")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every model, what it is, and the parameters `--set` takes
    List,
    /// Explore every state of MODEL and report each property
    Check {
        /// The model's name
        model: String,
        /// A model parameter as key=value (repeatable)
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Print the report as JSON
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let first = e.to_string();
            let line = first.lines().next().unwrap_or("bad arguments");
            eprintln!("{line}");
            return ExitCode::from(2);
        }
    };
    let (model, set, json) = match cli.command {
        Command::List => {
            print!("{}", list());
            return ExitCode::SUCCESS;
        }
        Command::Check { model, set, json } => (model, set, json),
    };
    let Some(entry) = locksim_models::model(&model) else {
        let known: Vec<&str> = locksim_models::MODELS.iter().map(|m| m.name).collect();
        eprintln!("unknown model {model:?} (known: {})", known.join(", "));
        return ExitCode::from(2);
    };
    let report = match Settings::parse(&set).and_then(|s| (entry.check)(&s, true)) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("{}: {e}", entry.name);
            return ExitCode::from(2);
        }
    };
    if json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.to_text());
    }
    ExitCode::SUCCESS
}

/// The models with their parameters, for `list`.
fn list() -> String {
    let mut out = String::new();
    for entry in locksim_models::MODELS {
        out += &format!("{}: {}\n", entry.name, entry.about);
        for (name, meaning) in entry.params {
            out += &format!("  --set {name}=...  {meaning}\n");
        }
    }
    out
}
