//! The trace file format as it is read: each object's exact fields and their types, so a
//! file either means what it shows or is refused with the field named. Writing stays
//! derived `Serialize`; the round-trip tests below keep the two in step.

use super::strict_json::{Field, Fields, JsonError};
use super::{Expect, Trace};
use crate::check::Property;
use crate::sim::fault::{Fault, FaultPlan, Role, Target, TimedFault, Trigger};
use crate::sim::vocab::FaultTag;
use serde_json::Value;

pub fn trace(value: &Value) -> Result<Trace, JsonError> {
    let mut f = Field::root(value).fields()?;
    // Fields are read in the order written, so the first error is the first in the file's
    // usual layout.
    let trace = Trace {
        format: f.string("format")?,
        scenario: f.string("scenario")?,
        seed: f.u64("seed")?,
        // Its keys and their values are `Params::from_json`'s to judge.
        params: match f.optional("params") {
            Some(params) => params.object()?.clone(),
            None => serde_json::Map::new(),
        },
        properties: f.optional("properties").map(properties).transpose()?,
        faults: FaultPlan(
            f.required("faults")?
                .items()?
                .into_iter()
                .map(timed_fault)
                .collect::<Result<_, _>>()?,
        ),
        locksim_version: f
            .optional("locksim_version")
            .map(Field::string)
            .transpose()?,
        expect: {
            // Files written before a build without `--cfg tokio_unstable` drew the same
            // randomness as one with it say which build wrote them; it no longer matters.
            f.optional("tokio_unseeded").map(Field::bool).transpose()?;
            expect(f.required("expect")?)?
        },
        digest: f.optional("digest").map(Field::string).transpose()?,
        note: f.optional("note").map(Field::string).transpose()?,
    };
    f.finish()?;
    Ok(trace)
}

fn expect(field: Field) -> Result<Expect, JsonError> {
    let mut f = field.fields()?;
    let violations = properties(f.required("violations")?)?;
    f.finish()?;
    Ok(Expect { violations })
}

/// Property names: the built-ins' or a user's (which the scenario's checkers must judge,
/// as a replay checks).
fn properties(field: Field) -> Result<Vec<Property>, JsonError> {
    let builtin: Vec<&str> = Property::BUILTIN.iter().map(|p| p.name()).collect();
    let what = format!(
        "a property name ({}, or the scenario's own: lowercase letters, digits and '-')",
        builtin.join(", ")
    );
    field
        .items()?
        .into_iter()
        .map(|item| item.parsed(&what, |name| Property::named(name).ok()))
        .collect()
}

/// A fault is one flat object: `at_ms`, the `fault` tag, and exactly the kind's fields.
fn timed_fault(field: Field) -> Result<TimedFault, JsonError> {
    let mut f = field.fields()?;
    let at_ms = f.u64("at_ms")?;
    let tags = FaultTag::ALL.map(|tag| (tag.name(), tag));
    let tag = f.required("fault")?.one_of("a fault name", &tags)?;
    let fault = fields(tag, &mut f)?;
    f.finish()?;
    Ok(TimedFault { at_ms, fault })
}

/// A targeted fault's `target`: `{"role": ROLE}`, or `{"role": "predecessor_of", "of": ROLE}`.
fn target(field: Field) -> Result<Target, JsonError> {
    type Read = fn(&mut Fields) -> Result<Target, JsonError>;
    const TARGETS: [(&str, Read); 7] = [
        ("holder", |_| Ok(Target::Holder)),
        ("leader", |_| Ok(Target::Leader)),
        ("waiter", |_| Ok(Target::Waiter)),
        ("blocked", |_| Ok(Target::Blocked)),
        ("reader", |_| Ok(Target::Reader)),
        ("writer", |_| Ok(Target::Writer)),
        ("predecessor_of", |f| {
            let roles = Role::ALL.map(|r| (r.name(), r));
            Ok(Target::PredecessorOf {
                of: f.required("of")?.one_of("a role", &roles)?,
            })
        }),
    ];
    let mut f = field.fields()?;
    let read = f.required("role")?.one_of("a role", &TARGETS)?;
    let target = read(&mut f)?;
    f.finish()?;
    Ok(target)
}

/// A targeted fault's `on`: `{"event": EVENT}`, and for `step` the step's name.
fn trigger(field: Field) -> Result<Trigger, JsonError> {
    type Read = fn(&mut Fields) -> Result<Trigger, JsonError>;
    const TRIGGERS: [(&str, Read); 4] = [
        ("enqueued", |_| Ok(Trigger::Enqueued)),
        ("acquired", |_| Ok(Trigger::Acquired)),
        ("woken", |_| Ok(Trigger::Woken)),
        ("step", |f| {
            Ok(Trigger::Step {
                step: f.string("step")?,
            })
        }),
    ];
    let mut f = field.fields()?;
    let read = f.required("event")?.one_of("an event", &TRIGGERS)?;
    let trigger = read(&mut f)?;
    f.finish()?;
    Ok(trigger)
}

/// Reads the fields of a fault tagged `tag` (the tag and `at_ms` are taken already).
fn fields(tag: FaultTag, f: &mut Fields) -> Result<Fault, JsonError> {
    Ok(match tag {
        FaultTag::Partition => Fault::Partition {
            a: f.string("a")?,
            b: f.string("b")?,
        },
        FaultTag::PartitionOneway => Fault::PartitionOneway {
            from: f.string("from")?,
            to: f.string("to")?,
        },
        FaultTag::Repair => Fault::Repair {
            a: f.string("a")?,
            b: f.string("b")?,
        },
        FaultTag::RepairAll => Fault::RepairAll,
        FaultTag::Loss => Fault::Loss {
            a: f.string("a")?,
            b: f.string("b")?,
            rate: f.f64("rate")?,
            for_ms: f.u64("for_ms")?,
        },
        FaultTag::Delay => Fault::Delay {
            a: f.string("a")?,
            b: f.string("b")?,
            ms: f.u64("ms")?,
            for_ms: f.u64("for_ms")?,
        },
        FaultTag::Crash => Fault::Crash {
            node: f.string("node")?,
        },
        FaultTag::Restart => Fault::Restart {
            node: f.string("node")?,
        },
        FaultTag::Pause => match f.optional("target") {
            Some(target) => Fault::PauseRole {
                target: self::target(target)?,
                on: f.optional("on").map(trigger).transpose()?,
                for_ms: f.u64("for_ms")?,
            },
            None => Fault::Pause {
                node: f.string("node")?,
                for_ms: f.u64("for_ms")?,
            },
        },
        FaultTag::PauseBefore => Fault::PauseBefore {
            node: f.string("node")?,
            step: f.string("step")?,
            for_ms: f.u64("for_ms")?,
        },
        FaultTag::ClockJump => Fault::ClockJump {
            node: f.string("node")?,
            by_ms: f.i64("by_ms")?,
        },
        FaultTag::ClockDrift => Fault::ClockDrift {
            node: f.string("node")?,
            ppm: f.i64("ppm")?,
        },
        FaultTag::LoseReply => Fault::LoseReply {
            node: f.string("node")?,
            op: f.string("op")?,
            client: f.string("client")?,
        },
        FaultTag::Failover => Fault::Failover {
            node: f.string("node")?,
        },
        FaultTag::StallApply => Fault::StallApply {
            node: f.string("node")?,
            for_ms: f.u64("for_ms")?,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::strict_json;
    use serde_json::json;

    fn one_of_each_kind() -> Vec<Fault> {
        let s = |x: &str| x.to_string();
        vec![
            Fault::Partition {
                a: s("c1"),
                b: s("zk1"),
            },
            Fault::PartitionOneway {
                from: s("c1"),
                to: s("zk1"),
            },
            Fault::Repair {
                a: s("c1"),
                b: s("zk1"),
            },
            Fault::RepairAll,
            Fault::Loss {
                a: s("c1"),
                b: s("zk1"),
                rate: 0.25,
                for_ms: 100,
            },
            Fault::Delay {
                a: s("c1"),
                b: s("zk1"),
                ms: 90,
                for_ms: 100,
            },
            Fault::Crash { node: s("zk1") },
            Fault::Restart { node: s("zk1") },
            Fault::Pause {
                node: s("c2"),
                for_ms: 500,
            },
            Fault::PauseRole {
                target: Target::PredecessorOf { of: Role::Waiter },
                on: Some(Trigger::Step { step: s("exists") }),
                for_ms: 400,
            },
            Fault::PauseRole {
                target: Target::Holder,
                on: None,
                for_ms: 50,
            },
            Fault::PauseRole {
                target: Target::Reader,
                on: Some(Trigger::Acquired),
                for_ms: 50,
            },
            Fault::PauseBefore {
                node: s("c2"),
                step: s("write"),
                for_ms: 300,
            },
            Fault::ClockJump {
                node: s("zk1"),
                by_ms: -10_000,
            },
            Fault::ClockDrift {
                node: s("zk1"),
                ppm: i64::MIN,
            },
            Fault::LoseReply {
                node: s("zk1"),
                op: s("create"),
                client: s("c1"),
            },
            Fault::Failover { node: s("redis1") },
            Fault::StallApply {
                node: s("zk1"),
                for_ms: 200,
            },
        ]
    }

    fn sample(faults: Vec<Fault>) -> Trace {
        Trace {
            format: crate::trace::FORMAT.into(),
            scenario: "zk-lock".into(),
            seed: u64::MAX,
            params: json!({"clients": 3, "fencing": true})
                .as_object()
                .unwrap()
                .clone(),
            properties: Some(vec![Property::MUTEX, Property::FIFO]),
            faults: FaultPlan(
                faults
                    .into_iter()
                    .enumerate()
                    .map(|(i, fault)| TimedFault {
                        at_ms: i as u64 * 10,
                        fault,
                    })
                    .collect(),
            ),
            locksim_version: Some("0.1.0".into()),
            expect: Expect {
                violations: Property::BUILTIN.to_vec(),
            },
            digest: Some("0123456789abcdef".into()),
            note: Some("mine".into()),
        }
    }

    fn decode(text: &str) -> Result<Trace, JsonError> {
        trace(&strict_json::parse(text)?)
    }

    #[test]
    fn every_fault_kind_and_every_field_round_trips() {
        let faults = one_of_each_kind();
        let mut names: Vec<&str> = faults.iter().map(Fault::name).collect();
        names.dedup();
        let tags: Vec<&str> = FaultTag::ALL.iter().map(|tag| tag.name()).collect();
        assert_eq!(names, tags, "one sample per tag, in the vocabulary's order");
        let written = sample(faults);
        assert_eq!(decode(&written.to_json()).unwrap(), written);
        let bare = Trace {
            properties: None,
            locksim_version: None,
            digest: None,
            note: None,
            params: serde_json::Map::new(),
            ..sample(vec![])
        };
        assert_eq!(decode(&bare.to_json()).unwrap(), bare);
    }

    #[test]
    fn an_older_files_tokio_unseeded_is_read_and_changes_nothing() {
        let written = sample(one_of_each_kind());
        assert!(!written.to_json().contains("tokio_unseeded"));
        for unseeded in [true, false] {
            let mut value = serde_json::to_value(&written).unwrap();
            value["tokio_unseeded"] = json!(unseeded);
            assert_eq!(trace(&value).unwrap(), written);
        }
    }

    #[test]
    fn serde_names_the_kinds_as_the_decoder_does() {
        for fault in one_of_each_kind() {
            let value = serde_json::to_value(&fault).unwrap();
            assert_eq!(value["fault"], fault.name());
        }
    }

    /// A change to a valid trace's JSON.
    type Edit = fn(&mut Value);

    /// The error of decoding a valid trace with `edit` applied to its JSON.
    fn decode_edited(edit: Edit) -> String {
        let mut value = serde_json::to_value(sample(one_of_each_kind())).unwrap();
        edit(&mut value);
        trace(&value).unwrap_err().to_string()
    }

    #[test]
    fn malformed_shapes_are_refused_naming_the_field() {
        let cases: &[(Edit, &str)] = &[
            (
                |v| v["faults"][0]["fault"] = json!(0),
                "faults[0].fault: expected a fault name (partition, partition_oneway, repair, repair_all, loss, delay, crash, restart, pause, pause_before, clock_jump, clock_drift, lose_reply, failover, stall_apply), got 0",
            ),
            (
                |v| v["faults"][3]["node"] = json!("zk1"),
                "faults[3]: unknown field `node` (known: at_ms, fault)",
            ),
            (
                |v| v["faults"][14]["ppm"] = json!("x"),
                "faults[14].ppm: expected an integer, got \"x\"",
            ),
            (
                |v| v["faults"][4]["rate"] = json!(null),
                "faults[4].rate: expected a number, got null",
            ),
            (
                |v| v["faults"][15]["op"] = json!(7),
                "faults[15].op: expected a string, got 7",
            ),
            (
                |v| {
                    v["faults"][8].as_object_mut().unwrap().remove("for_ms");
                },
                "faults[8]: missing field `for_ms`",
            ),
            (
                |v| v["faults"][9]["target"] = json!({"role": "boss"}),
                "faults[9].target.role: expected a role (holder, leader, waiter, blocked, reader, writer, predecessor_of), got \"boss\"",
            ),
            (
                |v| v["faults"][9]["target"] = json!({"role": "predecessor_of"}),
                "faults[9].target: missing field `of`",
            ),
            (
                |v| v["faults"][9]["target"]["of"] = json!("predecessor_of"),
                "faults[9].target.of: expected a role (holder, leader, waiter, blocked, reader, writer), got \"predecessor_of\"",
            ),
            (
                |v| v["faults"][10]["target"]["of"] = json!("waiter"),
                "faults[10].target: unknown field `of` (known: role)",
            ),
            (
                |v| v["faults"][9]["on"] = json!({"event": "step"}),
                "faults[9].on: missing field `step`",
            ),
            (
                |v| v["faults"][9]["on"] = json!({"event": "lunch"}),
                "faults[9].on.event: expected an event (enqueued, acquired, woken, step), got \"lunch\"",
            ),
            (
                |v| v["faults"][11]["on"]["step"] = json!("exists"),
                "faults[11].on: unknown field `step` (known: event)",
            ),
            (
                |v| v["faults"][9]["node"] = json!("c1"),
                "faults[9]: unknown field `node` (known: at_ms, fault, target, on, for_ms)",
            ),
            (
                |v| v["faults"][8]["on"] = json!({"event": "woken"}),
                "faults[8]: unknown field `on` (known: at_ms, fault, target, node, for_ms)",
            ),
            (
                |v| v["faults"][9]["target"] = json!("holder"),
                "faults[9].target: expected an object, got \"holder\"",
            ),
            (
                |v| v["faults"][1] = json!(["at_ms", 1]),
                "faults[1]: expected an object, got [\"at_ms\",1]",
            ),
            (
                |v| v["params"] = json!([2]),
                "params: expected an object, got [2]",
            ),
            (
                |v| v["expect"] = json!([[]]),
                "expect: expected an object, got [[]]",
            ),
            (
                |v| v["expect"]["violations"] = json!(["mutex", 0]),
                "expect.violations[1]: expected a property name (mutex, rw-exclusion, resource, herd, liveness, fifo, leader, queue, barrier, read-your-writes, or the scenario's own: lowercase letters, digits and '-'), got 0",
            ),
            (
                |v| v["properties"] = json!("mutex"),
                "properties: expected an array, got \"mutex\"",
            ),
            (
                |v| v["digest"] = json!(null),
                "digest: expected a string, got null",
            ),
            (
                |v| v["tokio_unseeded"] = json!("yes"),
                "tokio_unseeded: expected true or false, got \"yes\"",
            ),
            (
                |v| v["seed"] = json!(-1),
                "seed: expected a non-negative integer, got -1",
            ),
            (
                |v| v["seed"] = json!(1.5),
                "seed: expected a non-negative integer, got 1.5",
            ),
            (
                |v| {
                    v.as_object_mut().unwrap().remove("expect");
                },
                "missing field `expect`",
            ),
            (
                |v| *v = json!([v.clone()]),
                "expected a JSON object, got [{\"digest\":\"0123456789abcdef\",\"expect\":{...",
            ),
        ];
        for &(edit, message) in cases {
            assert_eq!(decode_edited(edit), message);
        }
        let e = decode_edited(|v| v["colour"] = json!("red"));
        assert!(
            e.starts_with("unknown field `colour` (known: format, scenario, seed, params,"),
            "{e}"
        );
    }
}
