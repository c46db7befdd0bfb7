//! `process_resident_memory_bytes` and `process_cpu_seconds_total`, read from `/proc/self` at
//! scrape time (Linux; elsewhere the two are simply absent), with the names Prometheus's own
//! client libraries use, so the standard saturation panels work unchanged.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Unit;

/// Clock ticks per second of `/proc/[pid]/stat`'s times: the kernel's `USER_HZ`, fixed at 100
/// in its user-space ABI whatever `CONFIG_HZ` is.
const USER_HZ: f64 = 100.0;

#[derive(Debug)]
pub struct ProcessCollector;

/// What one scrape reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProcessStats {
    pub resident_bytes: u64,
    pub cpu_seconds: f64,
}

impl ProcessStats {
    /// The current process's figures; `None` where `/proc` is not there to read.
    pub fn read() -> Option<Self> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
        Some(Self {
            resident_bytes: resident_bytes(&status)?,
            cpu_seconds: cpu_seconds(&stat)?,
        })
    }
}

/// `VmRSS:   1234 kB` of `/proc/self/status`, in bytes.
fn resident_bytes(status: &str) -> Option<u64> {
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    let mut words = line["VmRSS:".len()..].split_whitespace();
    let value: u64 = words.next()?.parse().ok()?;
    match words.next()? {
        "kB" => value.checked_mul(1024),
        _ => None,
    }
}

/// `utime + stime` of `/proc/self/stat`, in seconds. The fields are counted after the command
/// name's closing parenthesis, since the name itself may hold spaces and parentheses.
fn cpu_seconds(stat: &str) -> Option<f64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // Field 3 (`state`) is the first after the name; utime and stime are fields 14 and 15.
    let utime: u64 = fields.get(14 - 3)?.parse().ok()?;
    let stime: u64 = fields.get(15 - 3)?.parse().ok()?;
    Some((utime + stime) as f64 / USER_HZ)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let Some(stats) = ProcessStats::read() else {
            return Ok(());
        };
        let rss = ConstGauge::new(i64::try_from(stats.resident_bytes).unwrap_or(i64::MAX));
        rss.encode(encoder.encode_descriptor(
            "process_resident_memory",
            "Resident memory size",
            Some(&Unit::Bytes),
            rss.metric_type(),
        )?)?;
        let cpu = ConstCounter::new(stats.cpu_seconds);
        cpu.encode(encoder.encode_descriptor(
            "process_cpu",
            "Total user and system CPU time spent",
            Some(&Unit::Seconds),
            cpu.metric_type(),
        )?)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_resident_size_in_bytes() {
        let status = "Name:\tbff\nVmPeak:\t  9000 kB\nVmRSS:\t    2048 kB\nThreads:\t4\n";
        assert_eq!(resident_bytes(status), Some(2048 * 1024));
        assert_eq!(resident_bytes("Name:\tbff\n"), None);
        assert_eq!(resident_bytes("VmRSS:\t12 MB\n"), None);
    }

    #[test]
    fn reads_user_and_system_time_past_an_odd_command_name() {
        // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt
        // utime stime ...
        let stat = "42 (a) b) c) S 1 42 42 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 4 0";
        assert_eq!(cpu_seconds(stat), Some(3.0));
        assert_eq!(cpu_seconds("42 (bff) S 1"), None);
    }

    #[test]
    fn this_process_has_figures_on_linux() {
        if cfg!(target_os = "linux") {
            let stats = ProcessStats::read().unwrap_or_else(|| panic!("/proc/self unreadable"));
            assert!(stats.resident_bytes > 0);
            assert!(stats.cpu_seconds >= 0.0);
        }
    }
}
