//! `bff healthcheck`: the container's health probe without a shell or curl in the image. One
//! HTTP/1.1 GET of the admin listener's `/readyz`, bounded by a short timeout; healthy is a 200.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

/// The path probed: ready means serving (it fails from SIGTERM on, while draining).
pub const PATH: &str = "/readyz";

/// Where to reach a listener bound to `listen` from the same host: a wildcard address is
/// reached on loopback.
pub fn local_target(listen: SocketAddr) -> SocketAddr {
    let ip = match listen.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, listen.port())
}

/// `Ok(())` when `GET {PATH}` at `target` answers 200 within `timeout`; otherwise what happened.
pub fn probe(target: SocketAddr, timeout: Duration) -> Result<(), String> {
    let deadline = Instant::now() + timeout;
    let remaining = || {
        deadline
            .checked_duration_since(Instant::now())
            .filter(|left| !left.is_zero())
            .ok_or_else(|| format!("no answer from {target} within {timeout:?}"))
    };
    let mut stream = TcpStream::connect_timeout(&target, remaining()?)
        .map_err(|err| format!("cannot connect to {target}: {err}"))?;
    stream
        .set_write_timeout(Some(remaining()?))
        .map_err(|err| err.to_string())?;
    let request = format!(
        "GET {PATH} HTTP/1.1\r\nHost: {target}\r\nConnection: close\r\nUser-Agent: bff-healthcheck\r\n\r\n"
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|err| format!("cannot send to {target}: {err}"))?;
    // The status line is all that matters; read until it is complete or the deadline passes.
    let mut head = Vec::new();
    let mut buffer = [0_u8; 256];
    while !head.contains(&b'\n') && head.len() < 4096 {
        stream
            .set_read_timeout(Some(remaining()?))
            .map_err(|err| err.to_string())?;
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => head.extend_from_slice(&buffer[..read]),
            Err(err) => return Err(format!("no answer from {target}: {err}")),
        }
    }
    let status_line = String::from_utf8_lossy(&head);
    let status_line = status_line.lines().next().unwrap_or_default();
    match status_line.split_whitespace().nth(1) {
        Some("200") => Ok(()),
        Some(code) => Err(format!("{PATH} at {target} answered {code}")),
        None => Err(format!("{PATH} at {target}: not an HTTP answer")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_listeners_are_probed_on_loopback() {
        let probe =
            |listen: &str| local_target(listen.parse().unwrap_or_else(|err| panic!("{err}")));
        assert_eq!(probe("0.0.0.0:9090").to_string(), "127.0.0.1:9090");
        assert_eq!(probe("[::]:9090").to_string(), "[::1]:9090");
        assert_eq!(probe("10.1.2.3:9090").to_string(), "10.1.2.3:9090");
    }

    #[test]
    fn a_closed_port_is_unhealthy_within_the_timeout() {
        // Bind then drop: the port is free and nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .unwrap_or_else(|err| panic!("{err}"))
            .port();
        let started = Instant::now();
        let err = probe(
            SocketAddr::from(([127, 0, 0, 1], port)),
            Duration::from_secs(2),
        )
        .expect_err("nothing listens");
        assert!(err.contains("cannot connect"), "{err}");
        assert!(started.elapsed() < Duration::from_secs(3));
    }

    #[test]
    fn a_listener_that_never_answers_is_unhealthy_at_the_timeout() {
        let listener =
            std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|err| panic!("{err}"));
        let target = listener.local_addr().unwrap_or_else(|err| panic!("{err}"));
        let started = Instant::now();
        let err = probe(target, Duration::from_millis(300)).expect_err("no answer");
        assert!(started.elapsed() < Duration::from_secs(2), "{err}");
        drop(listener);
    }
}
