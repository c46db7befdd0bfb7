//! Who this replica is to the others and to operators: a random id per process (a pod restarted
//! is a new replica), the pod and zone where the environment names them, and when it started.
//! One value per [`crate::edge::state::AppState`], so replicas started in one test process stay
//! apart.

use serde::Serialize;

/// Where Kubernetes' downward API puts the pod's name (`fieldRef: metadata.name`).
pub const POD_NAME_VARIABLE: &str = "POD_NAME";
/// The zone, set by the deployment (for example from the node's
/// `topology.kubernetes.io/zone` label through an init step or the scheduler's injection).
pub const ZONE_VARIABLE: &str = "BFF_ZONE";

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplicaIdentity {
    /// Random per process: unique across restarts, unlike a pod name.
    pub id: String,
    pub pod: Option<String>,
    pub zone: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub started_unix_ms: u64,
}

impl ReplicaIdentity {
    /// A new identity, with the pod and zone from the environment when set (and not empty).
    pub fn from_environment() -> Self {
        let variable = |name| {
            std::env::var(name)
                .ok()
                .filter(|value| !value.trim().is_empty())
        };
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            pod: variable(POD_NAME_VARIABLE),
            zone: variable(ZONE_VARIABLE),
            started_unix_ms: crate::coordination::clock::unix_ms(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_identity_is_its_own_replica() {
        let first = ReplicaIdentity::from_environment();
        let second = ReplicaIdentity::from_environment();
        assert_ne!(first.id, second.id);
        assert!(second.started_unix_ms >= first.started_unix_ms);
    }
}
