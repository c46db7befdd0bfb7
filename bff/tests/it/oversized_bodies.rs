//! Issue 30, finding 1: a body declared larger than its route takes is refused before a byte of
//! it is sent and holds no concurrency slot; uploads are spooled to disk before they take one,
//! so twenty 20 MB uploads from twenty clients cost the bff little memory (measured from /proc
//! on the real binary); dealer registrations and image requests are limited per client.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use common::SandboxHooks;

use std::net::TcpListener as StdListener;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

const PAGE_ROUTE: &str = "/strapi/page/{name}";
const MIB: u64 = 1024 * 1024;

/// Sends `head` (a request without its body) on a new connection and reads the answer's head,
/// within `wait`. The body is never sent.
async fn head_only(stream: &mut TcpStream, head: &str, wait: Duration) -> String {
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    tokio::time::timeout(wait, async {
        loop {
            let read = stream.read(&mut buffer).await.unwrap();
            answer.extend_from_slice(&buffer[..read]);
            let text = String::from_utf8_lossy(&answer);
            if read == 0
                || text
                    .split_once("\r\n\r\n")
                    .is_some_and(|(_, body)| body.contains('}'))
            {
                break;
            }
        }
    })
    .await
    .expect("the answer comes before any body byte is sent");
    String::from_utf8_lossy(&answer).into_owned()
}

/// With the only concurrency slot held by a slow request, a POST declaring 2,000,000 bytes
/// (twice `server.max_body_bytes`) gets its 413 problem at once, without sending a body byte:
/// had it needed a slot it would have been shed (503). While its connection stays open, unsent
/// body and all, the slot serves the next request.
#[tokio::test]
async fn a_declared_oversize_body_is_refused_before_a_byte_is_sent_and_takes_no_slot() {
    let mut config = common::test_config();
    config.server.max_concurrent_requests = 1;
    let server = common::start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": PAGE_ROUTE, "latencyMs": 3000}))
        .await;
    let slow = {
        let request = server.client.get(server.url("/api/pages/home")).send();
        tokio::spawn(request)
    };
    // The slow request holds the slot once the sandbox has it.
    let deadline = Instant::now() + Duration::from_secs(10);
    while server.upstream_calls(PAGE_ROUTE).await == 0 {
        assert!(Instant::now() < deadline, "the slow request never arrived");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let shed = server.get("/api/products/summit%20lr").await;
    assert_eq!(shed.status(), 503, "the only slot is taken");

    let mut stream = TcpStream::connect(server.running.main_addr).await.unwrap();
    let head = format!(
        "POST /api/stock-alerts HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
         X-CSRF: 1\r\nContent-Length: 2000000\r\n\r\n",
        server.running.main_addr
    );
    let started = Instant::now();
    let answer = head_only(&mut stream, &head, Duration::from_secs(2)).await;
    let took = started.elapsed();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(
        answer.contains("application/problem+json") && answer.contains("payload_too_large"),
        "{answer}"
    );
    println!("413 after {took:?} with no body byte sent, while the only slot was held");

    // An upload route takes more (21 MiB), but not 30 MB.
    let mut upload = TcpStream::connect(server.running.main_addr).await.unwrap();
    let head = format!(
        "POST /api/dealer-registrations HTTP/1.1\r\nHost: {}\r\n\
         Content-Type: multipart/form-data; boundary=x\r\nX-CSRF: 1\r\n\
         Content-Length: 30000000\r\n\r\n",
        server.running.main_addr
    );
    let answer = head_only(&mut upload, &head, Duration::from_secs(2)).await;
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    assert_eq!(slow.await.unwrap().unwrap().status(), 200);
    server.clear_faults().await;
    // The refused connection is still open, its body unsent: it holds no slot.
    let served = server.get("/api/collections/rifles").await;
    assert_eq!(served.status(), 200);
    drop(stream);
    drop(upload);
    server.stop().await;
}

/// `rate_limit.image_requests_per_minute` and `dealer_registrations_per_minute` hold per
/// client; a dealer registration past it is refused before its body is read.
#[tokio::test]
async fn image_requests_and_dealer_registrations_are_limited_per_client() {
    let mut config = common::test_config();
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    config.rate_limit.image_requests_per_minute = 2;
    config.rate_limit.dealer_registrations_per_minute = 2;
    let server = common::start_with(config, &[]).await;
    let image_request = |from: &'static str| {
        server
            .client
            .post(server.url("/api/image-requests"))
            .header("x-csrf", "1")
            .header("x-forwarded-for", from)
            .json(&json!({}))
            .send()
    };
    for _ in 0..2 {
        assert_eq!(image_request("203.0.113.1").await.unwrap().status(), 422);
    }
    let refused = image_request("203.0.113.1").await.unwrap();
    assert_eq!(refused.status(), 429);
    assert!(
        common::header(&refused, "retry-after")
            .parse::<u64>()
            .unwrap()
            >= 1
    );
    assert_eq!(image_request("203.0.113.2").await.unwrap().status(), 422);

    let (content_type, body) = dealer_form(1024);
    let register = |from: &'static str| {
        server
            .client
            .post(server.url("/api/dealer-registrations"))
            .header("x-csrf", "1")
            .header("x-forwarded-for", from)
            .header("content-type", content_type.clone())
            .body(body.clone())
            .send()
    };
    for _ in 0..2 {
        assert_eq!(register("203.0.113.3").await.unwrap().status(), 200);
    }
    let calls = server.upstream_calls("/Registration/dealer").await;
    let refused = register("203.0.113.3").await.unwrap();
    assert_eq!(refused.status(), 429);
    assert_eq!(
        server.upstream_calls("/Registration/dealer").await,
        calls,
        "no upstream call"
    );
    assert_eq!(register("203.0.113.4").await.unwrap().status(), 200);
    server.stop().await;
}

/// The server's config for the upload tests: client addresses from `X-Forwarded-For` (each
/// upload says which client it is), no cap on one peer's connections (every test connection is
/// 127.0.0.1's).
fn behind_a_proxy() -> bff::config::Config {
    let mut config = common::test_config();
    config.server.max_connections_per_ip = 0;
    config.rate_limit.trusted_client_ip_header = "x-forwarded-for".to_owned();
    config.rate_limit.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
    config
}

/// The head of a dealer registration from `from` that declares `length` bytes.
fn upload_head(server: &common::TestServer, from: &str, length: u64) -> String {
    format!(
        "POST /api/dealer-registrations HTTP/1.1\r\nHost: {}\r\n\
         Content-Type: multipart/form-data; boundary=x\r\nX-CSRF: 1\r\n\
         X-Forwarded-For: {from}\r\nContent-Length: {length}\r\n\r\n",
        server.running.main_addr
    )
}

/// A 2 MB dealer registration from `from`: its status and body.
async fn two_mb_upload(server: &common::TestServer, from: &str) -> (u16, String) {
    let (content_type, body) = dealer_form(1_000_000);
    let answer = server
        .client
        .post(server.url("/api/dealer-registrations"))
        .header("x-csrf", "1")
        .header("x-forwarded-for", from)
        .header("content-type", content_type)
        .body(body)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .unwrap();
    (answer.status().as_u16(), answer.text().await.unwrap())
}

/// Issue 46, finding 1: 23 connections from 12 addresses each declare a 21 MiB upload and then
/// trickle 1.2 KB a second. Another client's 2 MB upload is still accepted: the spool reserves
/// what has arrived, not what is declared. The spool here holds 22 declared lengths (as the
/// shipped 448 MiB holds 21): reserving per head, the tricklers filled it and the 2 MB upload
/// got 503.
#[tokio::test]
async fn twenty_three_trickling_uploads_from_twelve_addresses_leave_another_upload_accepted() {
    const DECLARED: u64 = 22_020_000;
    let mut config = behind_a_proxy();
    config.uploads.spool_capacity_bytes = 22 * DECLARED;
    let server = common::start_with(config, &[]).await;
    let stop = CancellationToken::new();
    let tricklers: Vec<_> = (0..23)
        .map(|n| {
            let head = upload_head(&server, &format!("203.0.113.{}", n % 12 + 1), DECLARED);
            let (address, stop) = (server.running.main_addr, stop.clone());
            tokio::spawn(async move {
                let mut stream = TcpStream::connect(address).await.unwrap();
                stream.write_all(head.as_bytes()).await.unwrap();
                let mut sent = 0;
                loop {
                    if stream.write_all(&[b'.'; 1200]).await.is_err() {
                        break;
                    }
                    sent += 1200;
                    tokio::select! {
                        () = stop.cancelled() => break,
                        () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                }
                sent
            })
        })
        .collect();
    // Every head is in and has trickled.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let (status, text) = two_mb_upload(&server, "198.51.100.7").await;
    stop.cancel();
    let mut trickled = 0;
    for trickler in tricklers {
        trickled += trickler.await.unwrap();
    }
    println!("23 tricklers sent {trickled} bytes in all; the 2 MB upload answered {status}");
    assert_eq!(status, 200, "{text}");
    server.stop().await;
}

/// Issue 46, finding 1: an upload that would be refused whatever its body is refused before a
/// byte of it is read or reserved: without `X-CSRF` (403; any page can make its visitors'
/// browsers post `multipart/form-data`), and a Pro Deal application without a session (401).
#[tokio::test]
async fn an_upload_without_csrf_or_a_pro_deal_without_a_session_is_refused_with_no_body_read() {
    let server = common::start_with(behind_a_proxy(), &[]).await;
    let head = |path: &str, csrf: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\n\
             Content-Type: multipart/form-data; boundary=x\r\n{csrf}\
             Content-Length: 5000000\r\n\r\n",
            server.running.main_addr
        )
    };
    for (path, csrf, status, code) in [
        ("/api/pro-deal", "", "403", "csrf_rejected"),
        ("/api/dealer-registrations", "", "403", "csrf_rejected"),
        ("/api/pro-deal", "X-CSRF: 1\r\n", "401", "unauthorized"),
    ] {
        let mut stream = TcpStream::connect(server.running.main_addr).await.unwrap();
        let started = Instant::now();
        let answer = head_only(&mut stream, &head(path, csrf), Duration::from_secs(2)).await;
        println!("{path} ({csrf:?}): answered in {:?}", started.elapsed());
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{path}: {answer}"
        );
        assert!(answer.contains(code), "{path}: {answer}");
    }
    server.stop().await;
}

/// Issue 46, finding 1: an upload body slower than `uploads.min_bytes_per_second` (after
/// `server.body_read_timeout`'s grace) is cut by `body_read_timeout + received / min rate`,
/// answered 408, and its spool reservation given back: the next upload finds the room.
#[tokio::test]
async fn a_trickle_below_the_minimum_upload_rate_is_cut_and_its_reservation_released() {
    let mut config = behind_a_proxy();
    config.server.body_read_timeout = Duration::from_millis(500);
    config.uploads.min_bytes_per_second = 1024 * 1024;
    config.uploads.spool_capacity_bytes = 3 * MIB;
    let server = common::start_with(config, &[]).await;
    // 2.4 MiB at once, then 1 KB every 200 ms: 2.9 s of credit, then too slow.
    let burst = 2_400 * 1024;
    let documented = Duration::from_millis(500) + Duration::from_secs_f64(2.4 * 1000.0 / 1024.0);
    let mut stream = TcpStream::connect(server.running.main_addr).await.unwrap();
    let started = Instant::now();
    stream
        .write_all(upload_head(&server, "203.0.113.1", 2_600 * 1024).as_bytes())
        .await
        .unwrap();
    stream.write_all(&vec![b'.'; burst]).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 4096];
    let cut = tokio::time::timeout(documented + Duration::from_secs(3), async {
        loop {
            tokio::select! {
                read = stream.read(&mut buffer) => match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => answer.extend_from_slice(&buffer[..n]),
                },
                () = tokio::time::sleep(Duration::from_millis(200)) => {
                    if stream.write_all(&[b'.'; 1000]).await.is_err() {
                        break;
                    }
                }
            }
        }
    })
    .await;
    let took = started.elapsed();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    println!("the trickle was answered after {took:?} (documented: {documented:?})");
    assert!(cut.is_ok(), "still open after {took:?}: {answer}");
    // The 408, unless the reset for the trickle's unread bytes overtook it on the way.
    assert!(
        answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
        "{answer}"
    );
    let (status, text) = two_mb_upload(&server, "198.51.100.7").await;
    assert_eq!(status, 200, "the reservation was given back: {text}");
    server.stop().await;
}

/// Issue 46, finding 1: Pro Deal applications are limited per client
/// (`pro_deal_per_client_per_minute`) and per account (`pro_deal_per_account_per_minute`,
/// from any number of clients), before the upload is read.
#[tokio::test]
async fn pro_deal_applications_are_limited_per_client_and_per_account() {
    let mut config = behind_a_proxy();
    config.rate_limit.pro_deal_per_client_per_minute = 2;
    config.rate_limit.pro_deal_per_account_per_minute = 3;
    let server = common::start_with(config, &[]).await;
    let mut browser = common::browser::Browser::new(&server);
    browser.login().await;
    let boundary = "pro-deal-limit-test";
    let content_type = format!("multipart/form-data; boundary={boundary}");
    // An empty application is 422 (no document), once it passed the limits.
    let mut statuses = Vec::new();
    for from in [
        "203.0.113.1",
        "203.0.113.1",
        "203.0.113.1",
        "203.0.113.2",
        "203.0.113.3",
    ] {
        let answer = browser
            .send_raw(
                reqwest::Method::POST,
                "/api/pro-deal",
                &[("content-type", &content_type), ("x-forwarded-for", from)],
                format!("--{boundary}--\r\n").into_bytes(),
            )
            .await;
        statuses.push(answer.status);
    }
    assert_eq!(
        statuses,
        [422, 422, 429, 422, 429],
        "the client's third, then the account's fourth"
    );
    server.stop().await;
}

/// A valid dealer registration with two PDF documents of `document_bytes` each, as a
/// multipart body and its content type.
fn dealer_form(document_bytes: usize) -> (String, Bytes) {
    let boundary = "----bff-upload-test-boundary-7f3a9c";
    let mut body = Vec::with_capacity(2 * document_bytes + 4096);
    let texts = [
        ("company", "Ridge Outfitters"),
        ("website", "https://ridge.example"),
        ("phone", "(208) 555-0100"),
        ("email", "dealer@ridge.example"),
        ("firstName", "Sam"),
        ("lastName", "Ridge"),
        ("streetAddress", "10 Main St"),
        ("city", "Boise"),
        ("state", "ID"),
        ("postalCode", "83702"),
        ("country", "United States"),
        ("appearInDealerLocator", "true"),
        ("useThisAddressInDealerLocator", "true"),
        ("hasFflSot", "true"),
        ("fflNumber", "1-23-456-78-9A-12345"),
        ("captcha", common::browser::CAPTCHA),
    ];
    for (name, value) in texts {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (field, file) in [("fflDocument", "ffl.pdf"), ("sotDocument", "sot.pdf")] {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; \
                 filename=\"{file}\"\r\nContent-Type: application/pdf\r\n\r\n"
            )
            .as_bytes(),
        );
        let start = body.len();
        body.resize(start + document_bytes, b'.');
        body[start..start + 8].copy_from_slice(b"%PDF-1.4");
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (
        format!("multipart/form-data; boundary={boundary}"),
        Bytes::from(body),
    )
}

fn free_port() -> u16 {
    StdListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .unwrap()
}

/// The sandbox in this test's process, so the bff binary's memory is the bff's alone.
async fn start_sandbox(dir: &Path, stop: CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = sandbox::default_public_url(listener.local_addr().unwrap());
    let state =
        sandbox::SandboxState::new(sandbox::SandboxOptions::new(dir.to_owned(), origin.clone()))
            .unwrap();
    tokio::spawn(sandbox::serve(listener, state, async move {
        stop.cancelled().await;
    }));
    origin
}

/// A figure of `/proc/<pid>/status` (`VmRSS`, `VmHWM`), in bytes.
fn status_bytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|line| line.starts_with(&format!("{field}:")))
        .unwrap();
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|value| value.parse().ok())
        .unwrap();
    kib * 1024
}

async fn wait_until_ready(child: &mut Child, admin: &str) {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ready = client
            .get(format!("{admin}/readyz"))
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|response| response.status() == 200);
        if ready {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none() && Instant::now() < deadline,
            "the bff did not become ready"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `MALLOC_MMAP_THRESHOLD_` as the image and the k8s deployment both set it: the binary is
/// measured in the environment it is deployed in.
fn deployed_mmap_threshold() -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let dockerfile = std::fs::read_to_string(format!("{root}/Dockerfile")).unwrap();
    let deployment = std::fs::read_to_string(format!("{root}/k8s/base/deployment.yaml")).unwrap();
    let value = dockerfile
        .split("MALLOC_MMAP_THRESHOLD_=")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("the Dockerfile sets MALLOC_MMAP_THRESHOLD_")
        .to_owned();
    assert!(
        deployment.contains(&format!(
            "name: MALLOC_MMAP_THRESHOLD_\n              value: \"{value}\""
        )),
        "the deployment sets the same MALLOC_MMAP_THRESHOLD_ as the image"
    );
    value
}

/// Twenty concurrent 20 MB dealer registrations from twenty client addresses (through the
/// trusted proxy header) against the real binary, defaults as shipped: each completes, or is
/// told 503 with `Retry-After` past the spool's cap; the bff's peak RSS (VmHWM, reset once it is
/// idle) grows less than 64 MiB over its idle RSS.
#[tokio::test]
async fn twenty_concurrent_20_mb_uploads_cost_less_than_64_mib_of_memory() {
    let work = TempDir::new().unwrap();
    let stop = CancellationToken::new();
    let sandbox = start_sandbox(&work.path().join("sandbox"), stop.clone()).await;
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../config/bff.toml"))
            .unwrap();
    let config = work.path().join("bff.toml");
    std::fs::write(
        &config,
        shipped.replace(bff::config::SANDBOX_PLACEHOLDER, &sandbox),
    )
    .unwrap();
    let dist = work.path().join("dist");
    common::write_dist(&dist);
    let (main, admin) = (free_port(), free_port());
    let mut child = Command::new(env!("CARGO_BIN_EXE_bff"))
        .current_dir(work.path())
        .env("BFF_CONFIG", &config)
        .env("BFF__SERVER__LISTEN", format!("127.0.0.1:{main}"))
        .env("BFF__ADMIN__LISTEN", format!("127.0.0.1:{admin}"))
        .env("BFF__SERVER__MAX_CONNECTIONS_PER_IP", "0")
        .env("BFF__SANDBOX__ENABLED", "false")
        // Without the embedded sandbox the development stand-ins are refused: secrets of its own.
        .env("BFF_ADMIN_TOKEN", "oversized-bodies-admin-token-0123456789")
        .env(
            "BFF_WEBHOOK_SECRET",
            "oversized-bodies-webhook-secret-0123456789",
        )
        .env(
            "BFF_SESSION_KEYS",
            "oversized-bodies-session-key-0123456789",
        )
        .env("BFF__WEB__DIST_DIR", &dist)
        .env("BFF__READINESS__CACHE", "0s")
        .env(
            "BFF__RATE_LIMIT__TRUSTED_CLIENT_IP_HEADER",
            "x-forwarded-for",
        )
        .env("BFF__RATE_LIMIT__TRUSTED_PROXIES", "[\"127.0.0.1/32\"]")
        .env("BFF__LOG__FILTER", "warn")
        .env("TMPDIR", work.path())
        .env("MALLOC_MMAP_THRESHOLD_", deployed_mmap_threshold())
        .env_remove("RUST_LOG")
        .env_remove("BFF__REDIS__URL")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = child.id().unwrap();
    let (base, admin) = (
        format!("http://127.0.0.1:{main}"),
        format!("http://127.0.0.1:{admin}"),
    );
    wait_until_ready(&mut child, &admin).await;

    let client = reqwest::Client::new();
    // Warm: the first requests build what every request uses.
    let (small_type, small) = dealer_form(1024);
    let warm = client
        .post(format!("{base}/api/dealer-registrations"))
        .header("x-csrf", "1")
        .header("x-forwarded-for", "198.51.100.1")
        .header("content-type", small_type)
        .body(small)
        .send()
        .await
        .unwrap();
    assert_eq!(warm.status(), 200, "{}", warm.text().await.unwrap());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let idle = status_bytes(pid, "VmRSS");
    // The peak from here on (Linux: writing 5 to clear_refs resets VmHWM to the current RSS).
    std::fs::write(format!("/proc/{pid}/clear_refs"), "5").unwrap();

    // Each document just under its 10 MB limit.
    let document_bytes = 9_999_999;
    let (content_type, body) = dealer_form(document_bytes);
    assert!(body.len() >= 20_000_000, "{}", body.len());
    let started = Instant::now();
    let uploads: Vec<_> = (1..=20)
        .map(|client_number| {
            let request = client
                .post(format!("{base}/api/dealer-registrations"))
                .header("x-csrf", "1")
                .header("x-forwarded-for", format!("203.0.113.{client_number}"))
                .header("content-type", content_type.clone())
                .body(body.clone())
                .timeout(Duration::from_secs(120))
                .send();
            tokio::spawn(async move {
                let answer = request.await.unwrap();
                let status = answer.status().as_u16();
                let retry_after = common::header(&answer, "retry-after").to_owned();
                let problem: Value = answer.json().await.unwrap_or(Value::Null);
                (status, retry_after, problem)
            })
        })
        .collect();
    let mut completed = 0;
    let mut full = 0;
    for upload in uploads {
        let (status, retry_after, problem) = upload.await.unwrap();
        match status {
            200 => completed += 1,
            503 => {
                assert!(retry_after.parse::<u64>().unwrap() >= 1, "{problem}");
                full += 1;
            }
            other => panic!("an upload answered {other}: {problem}"),
        }
    }
    let took = started.elapsed();
    let peak = status_bytes(pid, "VmHWM");
    let growth = peak.saturating_sub(idle);
    println!(
        "20 uploads of {} bytes in {took:?}: {completed} completed, {full} refused 503 (spool full, \
         or no form place in time); RSS idle {:.1} MiB, peak {:.1} MiB, growth {:.1} MiB",
        body.len(),
        idle as f64 / MIB as f64,
        peak as f64 / MIB as f64,
        growth as f64 / MIB as f64
    );
    assert!(completed >= 1);
    assert!(
        growth < 64 * MIB,
        "peak RSS grew {:.1} MiB over idle",
        growth as f64 / MIB as f64
    );
    child.kill().await.unwrap();
    stop.cancel();
}
