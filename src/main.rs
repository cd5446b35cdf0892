//! The `locksim` command line: list, run, explore, merge, replay, bench.

use clap::{Args, Parser, Subcommand};
use locksim::check::Property;
use locksim::cli;
use std::path::PathBuf;
use std::process::ExitCode;

/// Deterministic simulation of distributed coordination recipes (ZooKeeper locks) under
/// partitions, pauses, crashes, clock faults and lost replies. Every failure is a seed plus
/// an explicit fault plan that replays exactly from a trace file.
///
/// With no command, explores every scenario for a short budget and prints a findings table:
/// correct recipes over seeds 0..200, flawed variants by a guided campaign until their first
/// finding. Its exit status is 0 when every scenario behaved as expected (correct recipes
/// clean, each flawed variant showing its flaw).
///
/// Environment: LOCKSIM_STEPPING=eager runs every host on every simulated millisecond, as
/// turmoil does; the default, lazy, skips hosts with nothing to do. Both give the same
/// histories.
///
/// Exit status: 0 no violation (or a replay reproduced its trace), 1 violation found (or a
/// replay differed from its trace), 2 bad usage or input, 3 harness error.
#[derive(Parser)]
#[command(name = "locksim", version, about, long_about)]
struct Cli {
    /// Print one JSON object instead of text.
    #[arg(long, global = true)]
    json: bool,
    /// Draw no progress on stderr.
    ///
    /// `explore` and the default run draw seeds done of the total, seeds/s, violations so far
    /// and the time left on stderr, only when it is a terminal and never with --json.
    #[arg(long, short, global = true)]
    quiet: bool,
    /// List every parameter in the first line of `run`, `explore` and `merge`.
    ///
    /// Without it, that line names only the parameters that differ from the scenario's
    /// defaults (its default profile's included).
    #[arg(long, short, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// List the scenarios and their parameters with defaults; with a scenario, only what
    /// that scenario uses: its checkers (and the events each reads) and its parameters.
    List { scenario: Option<String> },
    /// Run one seed of a scenario (its fault plan drawn from the seed).
    Run {
        scenario: String,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        opts: Opts,
        /// Print the recorded history.
        #[arg(long)]
        history: bool,
        /// Write the run's trace file (into --traces) even if it found nothing.
        #[arg(long)]
        save: bool,
    },
    /// Run many seeds in parallel; stop at the lowest failing seed, shrink its fault plan,
    /// write its trace into --traces and print the replay command. With --guided, a
    /// campaign of runs steered toward recipe states no run reached, in place of seeds.
    Explore {
        scenario: String,
        /// Seeds to run, as A..B (B excluded).
        #[arg(long, default_value = "0..1000", value_parser = cli::parse_seeds)]
        seeds: std::ops::Range<u64>,
        /// Search guided by coverage instead of one swarm plan per seed: keep the runs that
        /// reach a recipe state no run reached, mutate their plans after that point, and stop
        /// at the first finding or after --runs runs. The same --campaign gives the same
        /// runs and finding on any number of jobs.
        #[arg(long, conflicts_with = "seeds")]
        guided: bool,
        /// With --guided: the budget, in runs (1..=10000000).
        #[arg(long, requires = "guided", default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
        runs: u64,
        /// With --guided: the campaign's seed, which decides every choice of the search.
        #[arg(long, requires = "guided", default_value_t = 0)]
        campaign: u64,
        /// Run only shard I of N (1-based): the I-th of N contiguous blocks of --seeds,
        /// stopping at its lowest failing seed. `locksim merge` of the N shards' --json
        /// output gives exactly what one run over --seeds gives. With --guided: the I-th of
        /// N independent sub-campaigns (shard 1 is --campaign itself), with its share of
        /// --runs; the merge's verdict is the finding of the lowest-indexed shard that found
        /// one.
        #[arg(long, value_name = "I/N")]
        shard: Option<locksim::explore::Shard>,
        /// Go on after a finding: report the first seed of each property the range
        /// violates, each shrunk keeping that property broken and written as its own trace
        /// (SCENARIO-SEED-PROPERTY.json). Stops early once every judged property is found;
        /// the same first seeds with any --jobs. Not with --guided (a campaign stops at its
        /// first finding) nor --shard (merge combines one finding per shard).
        #[arg(long)]
        every_property: bool,
        /// Parallel simulations, 1..=256 (default: the number of cores; never more than
        /// there are seeds).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=locksim::explore::MAX_JOBS as u64))]
        jobs: Option<u64>,
        #[command(flatten)]
        opts: Opts,
    },
    /// Combine the --json output of `explore --shard I/N` for I = 1..N into the verdict one
    /// `explore` over the whole range gives: its lowest failing seed, replayed, with its
    /// shrunk plan and trace (written into --traces), its counts and its exit status. Of
    /// `explore --guided --shard I/N`: the finding of the lowest-indexed shard that found
    /// one, replayed and written alike, and the runs of all shards. Refuses (status 2)
    /// shards of different explorations or builds, range and guided shards together, a
    /// shard given twice, and missing shards, naming what they hold.
    Merge {
        /// The shards' reports, in any order.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Directory for the finding's trace file, as `explore` writes it.
        #[arg(long, default_value = "locksim-traces")]
        traces: PathBuf,
    },
    /// Replay a trace file: rebuild the run from the file alone and check its verdict and
    /// (when the file has one) its history digest.
    Replay {
        file: PathBuf,
        /// Print the recorded history.
        #[arg(long)]
        history: bool,
        /// Print the run as a timeline by true time (faults, acquires, releases, losses,
        /// servers' events), even if it found nothing.
        #[arg(long)]
        timeline: bool,
        /// Also write the run as a picture into OUT: one self-contained HTML page (no
        /// network) drawing a lane per client and server on a true-time axis, with holds,
        /// faults and the violations highlighted; it opens zoomed to the violations.
        #[arg(long, value_name = "OUT")]
        html: Option<PathBuf>,
    },
    /// Serve a simulated server on a real socket and the real clock, for real clients.
    #[command(subcommand, subcommand_required = true, arg_required_else_help = false)]
    Serve(ServeCommand),
    /// Measure the guided search against random exploration, side by side: for each
    /// scenario, the runs each takes to its first finding over --samples seed ranges and as
    /// many campaigns (median, and how many found it), and the transitions each covered
    /// within 100 runs and within --runs. Nothing is shrunk or written.
    Compare {
        /// The scenarios (`locksim list` names them).
        #[arg(required = true)]
        scenarios: Vec<String>,
        /// Seed ranges (k*RUNS..(k+1)*RUNS for k below it) and campaigns (0..SAMPLES).
        #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=1000))]
        samples: u64,
        /// The runs of each range and each campaign.
        #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        runs: u64,
        /// Parallel simulations, 1..=256 (default: the number of cores).
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..=locksim::explore::MAX_JOBS as u64))]
        jobs: Option<u64>,
        /// Start from one of each scenario's named profiles instead of its default one.
        #[arg(long, value_name = "NAME")]
        profile: Option<String>,
        /// Override a scenario parameter (repeatable).
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Go on after each finding to the end of every range and campaign, and also print
        /// how many runs per 1,000 found something on each side: a sharper measure than
        /// medians of runs to a first finding, which swing by a third from one set of
        /// samples to the next. It costs the whole budget of every sample.
        #[arg(long)]
        rate: bool,
        /// Also draw the comparison into OUT, an SVG picture: a panel a scenario, each
        /// side's median of distinct transitions against runs, and a dashed line at its
        /// median of runs to a first finding.
        #[arg(long, value_name = "OUT")]
        svg: Option<PathBuf>,
    },
    /// Measure runs per second and simulated-to-wall time against a bare turmoil simulation.
    Bench {
        /// Runs of each kind in one trial.
        #[arg(long, default_value_t = 20)]
        runs: u32,
        /// Trials of each kind, alternating; the best of each counts (1 to 100).
        #[arg(long, default_value_t = 3)]
        trials: u32,
        /// The scenario to time (`locksim list` names them).
        #[arg(long, default_value = "zk-lock")]
        scenario: String,
        /// Start from one of the scenario's named profiles instead of its default one.
        #[arg(long, value_name = "NAME")]
        profile: Option<String>,
        /// Override a scenario parameter (repeatable), e.g. --set clients=3.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
    },
}

#[derive(Subcommand)]
enum ServeCommand {
    /// The simulated ZooKeeper (the simulation's own server core) on TCP. Point any
    /// ZooKeeper client at it, e.g. `zkCli.sh -server 127.0.0.1:2181`. Logs sessions at info
    /// and every request at debug level (RUST_LOG=debug). Ctrl-C stops it.
    Zk {
        #[arg(long, default_value_t = locksim::zk::PORT)]
        port: u16,
        /// Address to listen on (loopback unless you say otherwise).
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// ZooKeeper tickTime: sessions expire on tick boundaries.
        #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u64).range(1..=600_000))]
        tick_ms: u64,
        /// Shortest session timeout granted (default 2 × tick). At most 2147483647: the
        /// protocol's timeout is a Java int.
        #[arg(long, value_parser = session_timeout_ms())]
        min_session_timeout_ms: Option<u64>,
        /// Longest session timeout granted (default 20 × tick). At most 2147483647.
        #[arg(long, value_parser = session_timeout_ms())]
        max_session_timeout_ms: Option<u64>,
        /// Lose the reply to every Nth create the server applies (and drop that connection),
        /// to try a client against a lost reply.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        lose_reply_every: Option<u64>,
        /// Seed of the session passwords.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// jute.maxbuffer, in bytes: a client announcing a longer packet (or a negative
        /// length) has its connection closed, as ZooKeeper does.
        #[arg(long, default_value_t = locksim::zk::proto::JUTE_MAXBUFFER as u32,
              value_parser = clap::value_parser!(u32).range(1..=i32::MAX as i64))]
        jute_maxbuffer: u32,
        /// How often empty containers and expired TTL nodes are deleted
        /// (znode.container.checkIntervalMs).
        #[arg(long, default_value_t = locksim::zk::serve::CONTAINER_CHECK_MS,
              value_parser = clap::value_parser!(u64).range(1..=i32::MAX as u64))]
        container_check_ms: u64,
        /// Allow TTL nodes (zookeeper.extendedTypesEnabled); without it createTTL is
        /// answered Unimplemented, as by ZooKeeper's default.
        #[arg(long)]
        extended_types: bool,
        /// Serve an ensemble of 3 or 5 (zk1..zkN led by the last) on consecutive ports from
        /// --port (each its own with --port 0), linked in the process; 1 serves one server.
        #[arg(long, default_value_t = 1)]
        servers: u32,
    },
    /// The simulated Redis 7.0 (the simulation's own server core, Lua scripting included)
    /// on TCP. Point any Redis client at it, e.g. `redis-cli -p 6379`. One database, no
    /// persistence, no replicas. Logs connections and every write at debug level
    /// (RUST_LOG=debug). Ctrl-C stops it.
    Redis {
        #[arg(long, default_value_t = locksim::redis::PORT)]
        port: u16,
        /// Address to listen on (loopback unless you say otherwise).
        #[arg(long, default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// The clock key deadlines live on.
        #[arg(long, value_enum, default_value_t = ExpiryClockArg::Wall)]
        expiry_clock: ExpiryClockArg,
        /// Redis's proto-max-bulk-len: the longest argument a request may declare; a longer
        /// one gets `-ERR Protocol error: invalid bulk length` and the connection closes. In
        /// Redis's units (1mb = 1048576, 1m = 1000000); at least 1mb.
        #[arg(long, default_value = "512mb", value_parser = cli::parse_memory)]
        proto_max_bulk_len: usize,
        /// Redis's client-query-buffer-limit: a connection whose unparsed input grows past
        /// this is closed unanswered. Same units; at least 1mb.
        #[arg(long, default_value = "1gb", value_parser = cli::parse_memory)]
        client_query_buffer_limit: usize,
        /// What one script may allocate in the Lua state before it fails with an error naming
        /// this limit (a real Redis sets none). Same units; at least 1mb.
        #[arg(long, default_value = "64mb", value_parser = cli::parse_memory)]
        lua_memory_limit: usize,
    },
}

/// `--expiry-clock`'s values.
#[derive(Clone, Copy, clap::ValueEnum)]
enum ExpiryClockArg {
    /// Redis's own: unix time, so a wall-clock jump moves every deadline.
    Wall,
    /// The proposed fix: deadlines on a monotonic clock, which never jumps.
    Monotonic,
}

impl From<ExpiryClockArg> for locksim::redis::clock::ExpiryClock {
    fn from(arg: ExpiryClockArg) -> Self {
        match arg {
            ExpiryClockArg::Wall => Self::Wall,
            ExpiryClockArg::Monotonic => Self::Monotonic,
        }
    }
}

/// A session timeout the wire can carry; clap's range error is already one line.
fn session_timeout_ms() -> clap::builder::RangedU64ValueParser {
    clap::value_parser!(u64).range(..=locksim::zk::session::MAX_TIMEOUT_MS)
}

#[derive(Args, Clone)]
struct Opts {
    /// Start from one of the scenario's named profiles (see `locksim list SCENARIO`)
    /// instead of its default one; --set overrides still apply on top.
    #[arg(long, value_name = "NAME")]
    profile: Option<String>,
    /// Override a scenario parameter (repeatable), e.g. --set pause_max_ms=600.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Judge only these properties (comma list), instead of the scenario's.
    #[arg(long = "check", value_delimiter = ',', value_parser = cli::parse_property)]
    check: Vec<Property>,
    /// Run each seed twice and compare history digests.
    #[arg(long)]
    check_determinism: bool,
    /// Directory for trace files (each with its picture beside it, the same name in
    /// .html): by default a scratch directory (git-ignored), so ad-hoc runs never land in
    /// the committed traces/ catalogue.
    #[arg(long, default_value = "locksim-traces")]
    traces: PathBuf,
}

impl From<Opts> for cli::Options {
    fn from(o: Opts) -> cli::Options {
        cli::Options {
            profile: o.profile,
            set: o.set,
            check: o.check,
            check_determinism: o.check_determinism,
            traces: o.traces,
        }
    }
}

/// Clap's own errors span several lines (with usage and tips) and ignore `--json`; the
/// project's rule is one line (or one JSON object) and status 2, like every other bad input.
fn parse() -> Result<Cli, ExitCode> {
    Cli::try_parse().map_err(|e| {
        if !e.use_stderr() {
            e.exit(); // --help and --version: print to stdout, exit 0
        }
        let rendered = e.render().to_string();
        let message = rendered
            .lines()
            .take_while(|l| !l.trim().is_empty())
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        let message = message.strip_prefix("error: ").unwrap_or(&message);
        let json = std::env::args_os().any(|a| a == "--json");
        let out = cli::Output {
            json,
            quiet: true,
            verbose: false,
        };
        ExitCode::from(out.bad_input(message) as u8)
    })
}

/// A run allocates and frees small buffers (segments, requests, history events, Lua values) on
/// every step: mimalloc does that in about a tenth fewer instructions than glibc's allocator
/// (docs/benchmark.md). Only the command line's choice; the library leaves it to its user.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    let out = cli::Output {
        json: cli.json,
        quiet: cli.quiet,
        verbose: cli.verbose,
    };
    if let Err(e) = locksim::world::run::Stepping::from_env() {
        return ExitCode::from(out.bad_input(&e) as u8);
    }
    let status = match cli.command {
        None => cli::default_exploration(&out),
        Some(Command::List { scenario }) => cli::list(&out, scenario.as_deref()),
        Some(Command::Run {
            scenario,
            seed,
            opts,
            history,
            save,
        }) => cli::run(&out, &scenario, seed, &opts.into(), history, save),
        Some(Command::Explore {
            scenario,
            seeds,
            guided,
            runs,
            campaign,
            shard,
            every_property,
            jobs,
            opts,
        }) => {
            let search = match guided {
                true => cli::Search::Guided {
                    campaign,
                    budget: runs,
                },
                false => cli::Search::Seeds(seeds),
            };
            let jobs = jobs.map(|j| j as usize);
            cli::explore(
                &out,
                &scenario,
                search,
                shard,
                jobs,
                every_property,
                &opts.into(),
            )
        }
        Some(Command::Merge { files, traces }) => cli::merge(&out, &files, &traces),
        Some(Command::Replay {
            file,
            history,
            timeline,
            html,
        }) => cli::replay(&out, &file, history, timeline, html.as_deref()),
        Some(Command::Compare {
            scenarios,
            samples,
            runs,
            jobs,
            profile,
            set,
            rate,
            svg,
        }) => cli::compare(
            &out,
            &scenarios,
            &cli::CompareOptions {
                samples,
                runs,
                jobs: jobs.map(|j| j as usize),
                profile,
                set,
                rate,
                svg,
            },
        ),
        Some(Command::Bench {
            runs,
            trials,
            scenario,
            profile,
            set,
        }) => cli::bench(&out, &scenario, profile.as_deref(), &set, (runs, trials)),
        Some(Command::Serve(ServeCommand::Zk {
            port,
            bind,
            tick_ms,
            min_session_timeout_ms,
            max_session_timeout_ms,
            lose_reply_every,
            seed,
            jute_maxbuffer,
            container_check_ms,
            extended_types,
            servers,
        })) => {
            let config = locksim::zk::serve::ServeConfig {
                tick_ms,
                min_session_timeout_ms,
                max_session_timeout_ms,
                lose_reply_every,
                seed,
                jute_maxbuffer: jute_maxbuffer as usize,
                container_check_ms,
                extended_types,
                servers,
            };
            cli::serve_zk(&out, (bind, port).into(), config)
        }
        Some(Command::Serve(ServeCommand::Redis {
            port,
            bind,
            expiry_clock,
            proto_max_bulk_len,
            client_query_buffer_limit,
            lua_memory_limit,
        })) => {
            let config = locksim::redis::serve::ServeConfig {
                expiry_clock: expiry_clock.into(),
                proto_max_bulk_len,
                client_query_buffer_limit,
                lua_memory_limit,
            };
            cli::serve_redis(&out, (bind, port).into(), config)
        }
    };
    ExitCode::from(status as u8)
}
