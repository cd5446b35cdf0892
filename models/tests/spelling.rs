//! Every flavor a model takes is spelled as the simulation's scenario for it ends, and that
//! scenario exists, so `--set flavor=X` and `locksim explore MODEL-X` name the same recipe.

use locksim_models::redis_lock::RedisLockModel;
use locksim_models::redlock::RedlockModel;
use locksim_models::settings::Settings;
use locksim_models::zk_lock::ZkLockModel;

/// (model, flavor, the locksim scenario it stands for).
const FLAVORS: &[(&str, &str, &str)] = &[
    ("redis-lock", "recipe", "redis-lock"),
    ("redis-lock", "del", "redis-lock-del"),
    ("redlock", "recipe", "redlock"),
    ("redlock", "novalidity", "redlock-novalidity"),
    ("redlock", "nounlock", "redlock-nounlock"),
    ("redlock", "del", "redis-lock-del"),
    ("zk-lock", "recipe", "zk-lock"),
    ("zk-lock", "herd", "zk-lock-herd"),
    ("zk-lock", "noguid", "zk-lock-noguid"),
];

#[test]
fn each_flavor_is_spelled_as_its_simulated_scenario() {
    for &(model, flavor, scenario) in FLAVORS {
        let settings = Settings::parse(&[format!("flavor={flavor}")]).unwrap();
        let described = match model {
            "redis-lock" => RedisLockModel::from_settings(&settings).map(|m| m.describe()),
            "redlock" => RedlockModel::from_settings(&settings).map(|m| m.describe()),
            _ => ZkLockModel::from_settings(&settings).map(|m| m.describe()),
        }
        .unwrap_or_else(|e| panic!("{model} {flavor}: {e}"));
        assert_eq!(described[0], ("flavor", flavor.to_string()));
        assert!(
            locksim::scenario::find(scenario).is_ok(),
            "{model} {flavor}: no scenario {scenario}"
        );
        assert!(
            scenario.ends_with(flavor) || flavor == "recipe",
            "{scenario} {flavor}"
        );
    }
}
