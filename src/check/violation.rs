//! A property the system under test broke, told in one line with clients and true times.

use super::Property;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One breach of a property, as a checker reports it and a trace file records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    /// The property broken.
    pub property: Property,
    /// The clients involved, the one the violation is about first.
    pub clients: Vec<String>,
    /// The true times that pin it down; each checker documents which ones it gives.
    pub times_ms: Vec<u64>,
    /// One line saying what happened, e.g. "c1 and c3 both held /locks/l1 during 1040..1210 ms".
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.property, self.detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_as_property_then_detail_and_round_trips_through_json() {
        let v = Violation {
            property: Property::MUTEX,
            clients: vec!["c1".to_string(), "c3".to_string()],
            times_ms: vec![1040, 1210],
            detail: "c1 and c3 both held /locks/l1 during 1040..1210 ms".to_string(),
        };
        assert_eq!(
            v.to_string(),
            "mutex: c1 and c3 both held /locks/l1 during 1040..1210 ms"
        );
        let json = serde_json::to_string(&v).unwrap();
        assert!(json.contains("\"property\":\"mutex\""), "{json}");
        assert_eq!(serde_json::from_str::<Violation>(&json).unwrap(), v);
    }
}
