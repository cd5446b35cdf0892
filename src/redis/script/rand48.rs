//! `math.random` and `math.randomseed` as Redis 7.0 replaces them: Lua's own functions over
//! Redis's portable `lrand48` (`src/rand.c`), so a seed gives the same numbers on every machine.
//!
//! Redis 7.0 no longer reseeds per script: one generator per process, starting from lrand48's
//! fixed initial state and moved on by every script. Here it is one per [`super::Scripts`] (one
//! per simulated server), kept across `SCRIPT FLUSH` and started afresh by a restart, as Redis is.

use mlua::{Lua, MultiValue};

use super::raise::{self, Args};

/// lrand48's 48-bit state: `x' = (0x5DEECE66D · x + 0xB) mod 2⁴⁸`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Rand48(u64);

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const INCREMENT: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;
/// `REDIS_LRAND48_MAX`.
const LRAND48_MAX: i64 = i32::MAX as i64;

impl Default for Rand48 {
    /// lrand48's initial state (`X2 X1 X0 = 0x1234 0xABCD 0x330E`), as a fresh Redis process has it.
    fn default() -> Self {
        Rand48(0x1234_ABCD_330E)
    }
}

impl Rand48 {
    /// `redisSrand48`: the seed's 32 bits above lrand48's constant low word.
    fn seed(seed: i32) -> Self {
        Rand48((u64::from(seed as u32) << 16) | 0x330E)
    }

    /// `redisLrand48`: the top 31 bits of the next state.
    fn next(&mut self) -> i64 {
        self.0 = (self.0.wrapping_mul(MULTIPLIER).wrapping_add(INCREMENT)) & MASK;
        (self.0 >> 17) as i64
    }

    /// A number in [0, 1), drawn as `redis_math_random` draws it (before it looks at its arguments).
    fn unit(&mut self) -> f64 {
        (self.next() % LRAND48_MAX) as f64 / LRAND48_MAX as f64
    }
}

/// `math.random([m [, n]])`.
pub(super) fn random(lua: &Lua, args: MultiValue) -> mlua::Result<f64> {
    let r = lua
        .app_data_mut::<Rand48>()
        .map(|mut rand| rand.unit())
        .unwrap_or_default();
    let args = Args(&args);
    match args.len() {
        0 => Ok(r),
        1 => {
            let upper = args.check_int(lua, 1)?;
            if upper < 1 {
                return Err(raise::arg_error(lua, 1, "interval is empty"));
            }
            Ok((r * f64::from(upper)).floor() + 1.0)
        }
        2 => {
            let lower = args.check_int(lua, 1)?;
            let upper = args.check_int(lua, 2)?;
            if lower > upper {
                return Err(raise::arg_error(lua, 2, "interval is empty"));
            }
            // C's `int` arithmetic, wrapping as it does on the machines Redis runs on.
            let span = upper.wrapping_sub(lower).wrapping_add(1);
            Ok((r * f64::from(span)).floor() + f64::from(lower))
        }
        _ => Err(raise::message(lua, 1, "wrong number of arguments")),
    }
}

/// `math.randomseed(n)`.
pub(super) fn randomseed(lua: &Lua, args: MultiValue) -> mlua::Result<()> {
    let seed = Args(&args).check_int(lua, 1)?;
    if let Some(mut rand) = lua.app_data_mut::<Rand48>() {
        *rand = Rand48::seed(seed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Rand48;

    /// Redis's generator from its initial state (the first values a fresh redis-server 7.0.15's
    /// `math.random(1000)` turns into 397 and 841), and glibc's lrand48 after `srand48(42)` and
    /// `srand48(-5)`.
    #[test]
    fn matches_lrand48() {
        let mut fresh = Rand48::default();
        assert_eq!(
            [fresh.next(), fresh.next(), fresh.next()],
            [851401618, 1804928587, 758783491]
        );
        let mut seeded = Rand48::seed(42);
        assert_eq!([seeded.next(), seeded.next()], [1598855263, 735945821]);
        let mut negative = Rand48::seed(-5);
        assert_eq!([negative.next(), negative.next()], [1754100061, 487370682]);
    }
}
