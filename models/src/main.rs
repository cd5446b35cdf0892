//! `locksim-models check MODEL [--set key=value]... [--json] [--symmetry]`: checks a model
//! exhaustively and prints, per property, whether it holds or the path that breaks it (a
//! progress line on stderr while it runs, when stderr is a terminal and neither `--json` nor
//! `--quiet` is given; `--symmetry` searches depth first
//! with symmetry reduction over clients); exits 0 if every property holds, 1 if an `always`
//! property has a counterexample or a `sometimes` property has no example, so it can gate CI.
//! `locksim-models list` names the models and their parameters. `check MODEL --trace FILE`
//! also writes the first counterexample as a locksim trace if the simulator reproduces it
//! (exit 1 if not). `serve-explorer MODEL [--port P]` serves the model in stateright's
//! Explorer on 127.0.0.1 (not `explore`, which in `locksim` runs seeds). Bad input exits 2 with one line on stderr. `--json` is accepted anywhere.

use clap::{Parser, Subcommand};
use locksim_models::ExportFn;
use locksim_models::settings::Settings;
use std::fs::OpenOptions;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "locksim-models",
    version,
    about = "Model-check locksim's lock recipes",
    after_help = "Exit status: 0 every property holds, 1 an `always` property has a counterexample or a `sometimes` property has no example (or --trace could not reproduce it), 2 bad usage or input."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print JSON instead of text (accepted anywhere on the line)
    #[arg(long, global = true)]
    json: bool,
    /// Draw no progress on stderr.
    ///
    /// `check` draws states explored, unique states, depth, states/s and the time elapsed on
    /// stderr while it runs, only when stderr is a terminal and never with --json.
    #[arg(long, short, global = true)]
    quiet: bool,
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
        /// Write the first counterexample as a locksim trace to FILE (never overwritten)
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// Search depth first with stateright's symmetry reduction over clients: states that
        /// differ only by which client is which are explored once (about 1/2 the unique
        /// states with 2 clients, 1/6 with 3, 1/24 with 4), same verdicts. Each counterexample
        /// is still a real, shortest path, found breadth first over the reduced space. The
        /// depth reported is the depth-first search's. Use it for 3 or more clients
        #[arg(long)]
        symmetry: bool,
    },
    /// Serve MODEL in stateright's Explorer on 127.0.0.1, to step through its states by hand
    /// (named so as not to clash with `locksim explore`, which runs seeds of the simulation)
    ServeExplorer {
        /// The model's name
        model: String,
        /// A model parameter as key=value (repeatable)
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// The port to serve on
        #[arg(long, default_value_t = 3000)]
        port: u16,
    },
    /// The old name of `serve-explorer`: refused, naming the new one
    #[command(hide = true)]
    Explore {
        /// Whatever followed it
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        rest: Vec<String>,
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
    let json = cli.json;
    let (model, set, trace, symmetry) = match cli.command {
        Command::List => {
            if json {
                println!("{}", list_json());
            } else {
                print!("{}", list());
            }
            return ExitCode::SUCCESS;
        }
        Command::Check {
            model,
            set,
            trace,
            symmetry,
        } => (model, set, trace, symmetry),
        Command::ServeExplorer { .. } if json => {
            eprintln!("serve-explorer --json: the Explorer serves a web page, there is no report");
            return ExitCode::from(2);
        }
        Command::ServeExplorer { model, set, port } => return serve_explorer(&model, &set, port),
        Command::Explore { .. } => {
            eprintln!(
                "explore: renamed serve-explorer (`locksim explore` runs seeds of the simulation)"
            );
            return ExitCode::from(2);
        }
    };
    let Some(entry) = find(&model) else {
        return ExitCode::from(2);
    };
    let check = match (symmetry, entry.check_symmetric) {
        (false, _) => entry.check,
        (true, Some(check)) => check,
        (true, None) => {
            eprintln!(
                "{}: --symmetry: its clients are not interchangeable, check it without",
                entry.name
            );
            return ExitCode::from(2);
        }
    };
    if let Some(path) = &trace {
        if entry.export.is_none() {
            eprintln!("{}: --trace has no mapping for this model yet", entry.name);
            return ExitCode::from(2);
        }
        if std::fs::symlink_metadata(path).is_ok() {
            eprintln!("{}: already exists, not overwriting it", path.display());
            return ExitCode::from(2);
        }
    }
    let settings = match Settings::parse(&set) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("{}: {e}", entry.name);
            return ExitCode::from(2);
        }
    };
    let report = match check(&settings, !json && !cli.quiet) {
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
    if let (Some(path), Some(export)) = (trace, entry.export)
        && let Err(code) = write_trace(entry.name, export, &settings, &path)
    {
        return code;
    }
    if report.holds() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The model called `name`, or says which models there are.
fn find(name: &str) -> Option<&'static locksim_models::Entry> {
    let entry = locksim_models::model(name);
    if entry.is_none() {
        let known: Vec<&str> = locksim_models::MODELS.iter().map(|m| m.name).collect();
        eprintln!("unknown model {name:?} (known: {})", known.join(", "));
    }
    entry
}

/// Serves the model in the Explorer on 127.0.0.1:`port`; returns only on an error.
fn serve_explorer(model: &str, set: &[String], port: u16) -> ExitCode {
    let Some(entry) = find(model) else {
        return ExitCode::from(2);
    };
    let settings = match Settings::parse(set) {
        Ok(settings) => settings,
        Err(e) => {
            eprintln!("{}: {e}", entry.name);
            return ExitCode::from(2);
        }
    };
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    // The Explorer panics if it cannot bind, so a port in use is found out here first.
    if let Err(e) = TcpListener::bind(addr) {
        eprintln!("{addr}: {e}");
        return ExitCode::from(1);
    }
    match (entry.serve_explorer)(&settings, addr) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}: {e}", entry.name);
            ExitCode::from(2)
        }
    }
}

/// Exports the counterexample and writes it to `path`, created exclusively; else the exit
/// status to end with.
fn write_trace(
    model: &str,
    export: ExportFn,
    settings: &Settings,
    path: &Path,
) -> Result<(), ExitCode> {
    let exported = match export(settings) {
        Ok(exported) => exported,
        Err(e) => {
            eprintln!("{model}: {e}");
            return Err(ExitCode::from(e.exit_code()));
        }
    };
    let written = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| file.write_all(exported.trace.to_json().as_bytes()));
    if let Err(e) = written {
        eprintln!("{}: {e}", path.display());
        return Err(ExitCode::from(1));
    }
    let violated: Vec<&str> = exported
        .trace
        .expect
        .violations
        .iter()
        .map(|p| p.name())
        .collect();
    eprintln!(
        "wrote {}: {model}'s {} counterexample as scenario {} (violates {}); run `locksim replay {}`",
        path.display(),
        exported.property,
        exported.trace.scenario,
        violated.join(", "),
        path.display()
    );
    Ok(())
}

/// The models with their parameters and the simulation's flavors they cannot express, for
/// `list --json`.
fn list_json() -> serde_json::Value {
    let models: Vec<serde_json::Value> = locksim_models::MODELS
        .iter()
        .map(|entry| {
            let params: Vec<serde_json::Value> = entry
                .params
                .iter()
                .map(|(name, meaning)| serde_json::json!({"name": name, "meaning": meaning}))
                .collect();
            let unexpressed: Vec<serde_json::Value> = entry
                .unexpressed
                .iter()
                .map(|(flavor, why)| serde_json::json!({"flavor": flavor, "why": why}))
                .collect();
            serde_json::json!({
                "name": entry.name,
                "about": entry.about,
                "params": params,
                "unexpressed": unexpressed,
            })
        })
        .collect();
    serde_json::json!({ "models": models })
}

/// The models with their parameters and the simulation's flavors they cannot express, one
/// line each, for `list`.
fn list() -> String {
    let mut out = String::new();
    for entry in locksim_models::MODELS {
        out += &format!("{}: {}\n", entry.name, entry.about);
        for (name, meaning) in entry.params {
            out += &format!("  --set {name}=...  {meaning}\n");
        }
        for (flavor, why) in entry.unexpressed {
            out += &format!("  cannot express {flavor}: {why}\n");
        }
    }
    out
}
