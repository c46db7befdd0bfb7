//! Overload and slowness get fast, explicit answers, never a hang.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::SandboxHooks;
use common::{header, start_with, test_config};
use serde_json::{Value, json};

const SLOW_PAGE: &str = "/strapi/page/{name}";

#[tokio::test]
async fn a_request_over_the_time_limit_is_a_504_problem() {
    let mut config = test_config();
    config.server.request_timeout = Duration::from_millis(200);
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 2000}))
        .await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 504);
    assert_eq!(
        header(&response, "content-type"),
        "application/problem+json"
    );
    assert_eq!(header(&response, "retry-after"), "5");
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["code"], "timeout");
    server.stop().await;
}

#[tokio::test]
async fn a_slow_upstream_past_its_own_timeout_is_a_504_upstream_timeout() {
    let mut config = test_config();
    config.upstreams.content.timeout = Duration::from_millis(200);
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 2000}))
        .await;
    let response = server.get("/api/pages/home").await;
    assert_eq!(response.status(), 504);
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["code"], "upstream_timeout");
    server.stop().await;
}

#[tokio::test]
async fn requests_over_the_concurrency_limit_are_shed_with_retry_after() {
    let mut config = test_config();
    config.server.max_concurrent_requests = 1;
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 1000}))
        .await;
    let first = {
        let client = server.client.clone();
        let url = server.url("/api/pages/home");
        tokio::spawn(async move { client.get(url).send().await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(
        server
            .metrics()
            .await
            .value("http_server_active_requests", &[]),
        Some(1.0),
        "the slow request is in flight"
    );
    let shed = server.get("/api/pages/footer").await;
    assert_eq!(shed.status(), 503);
    assert_eq!(header(&shed, "retry-after"), "1");
    let problem: Value = shed.json().await.unwrap();
    assert_eq!(problem["code"], "overloaded");
    assert_eq!(first.await.unwrap().unwrap().status(), 200);
    let scrape = server.metrics().await;
    assert_eq!(scrape.value("bff_load_shed_total", &[]), Some(1.0));
    assert_eq!(scrape.value("http_server_active_requests", &[]), Some(0.0));
    server.stop().await;
}

#[tokio::test]
async fn calls_over_an_upstreams_concurrency_limit_wait_briefly_then_fail_fast() {
    let mut config = test_config();
    config.upstreams.content.max_concurrency = 1;
    config.upstreams.content.queue_timeout = Duration::from_millis(100);
    let server = start_with(config, &[]).await;
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 1000}))
        .await;
    let first = {
        let client = server.client.clone();
        let url = server.url("/api/pages/home");
        tokio::spawn(async move { client.get(url).send().await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let waiting = server.get("/api/pages/footer").await;
    assert_eq!(waiting.status(), 503);
    let problem: Value = waiting.json().await.unwrap();
    assert_eq!(problem["code"], "overloaded");
    assert_eq!(first.await.unwrap().unwrap().status(), 200);
    // The footer request never reached the upstream.
    let seen = server.sandbox_requests().await;
    assert!(
        seen.iter().all(|r| r["path"] != "/strapi/page/footer"),
        "{seen:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_body_over_the_limit_is_a_413_problem() {
    let mut config = test_config();
    config.server.max_body_bytes = 1024;
    let server = start_with(config, &[]).await;
    let response = server
        .client
        .post(server.url("/api/auth/login"))
        .header("x-csrf", "1")
        .header("content-type", "application/json")
        .body(format!("{{\"email\":\"{}\"}}", "a".repeat(4096)))
        .send()
        .await
        .unwrap();
    let status = response.status();
    let problem: Value = response.json().await.unwrap();
    assert_eq!(status, 413, "{problem}");
    assert_eq!(problem["code"], "payload_too_large");
    server.stop().await;
}

/// Every route's body limit is the same problem: checkout reads its body as bytes (for the
/// card-data check) and used to answer axum's text/plain "Failed to buffer the request body".
#[tokio::test]
async fn a_checkout_body_over_the_limit_is_a_413_problem_too() {
    let mut config = test_config();
    config.server.max_body_bytes = 1024;
    let server = start_with(config, &[]).await;
    let response = server
        .client
        .post(server.url("/api/checkout"))
        .header("x-csrf", "1")
        .header("idempotency-key", "over-the-limit-1")
        .header("content-type", "application/json")
        .body(format!("{{\"notes\":\"{}\"}}", "a".repeat(4096)))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert_eq!(
        header(&response, "content-type"),
        "application/problem+json"
    );
    let problem: Value = response.json().await.unwrap();
    assert_eq!(problem["code"], "payload_too_large");
    server.stop().await;
}

/// A path parameter that does not decode (bad UTF-8) is a 400 problem, not axum's text/plain.
#[tokio::test]
async fn an_undecodable_path_parameter_is_a_400_problem() {
    let server = start_with(test_config(), &[]).await;
    for path in [
        "/api/pages/%FF%FE",
        "/api/products/%C3%28",
        "/api/collections/%FF",
    ] {
        let response = server.get(path).await;
        assert_eq!(response.status(), 400, "{path}");
        assert_eq!(
            header(&response, "content-type"),
            "application/problem+json",
            "{path}"
        );
        let problem: Value = response.json().await.unwrap();
        assert_eq!(problem["code"], "invalid_path", "{path}");
    }
    server.stop().await;
}

/// Reads `stream` until the server closes it; `None` if it is still open after `bound` (which
/// is far above the timeout under test: it only keeps a broken build from hanging the suite).
async fn closed_within(
    stream: &mut tokio::net::TcpStream,
    bound: std::time::Duration,
) -> Option<Vec<u8>> {
    use tokio::io::AsyncReadExt;
    let mut received = Vec::new();
    let read = tokio::time::timeout(bound, async {
        let mut buffer = [0u8; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    read.ok().map(|()| received)
}

#[tokio::test]
async fn a_client_that_trickles_its_header_or_idles_is_disconnected_after_the_header_timeout() {
    use tokio::io::AsyncWriteExt;
    let mut config = test_config();
    config.server.header_read_timeout = Duration::from_millis(300);
    let server = start_with(config, &[]).await;
    let address = server.base.trim_start_matches("http://").to_owned();
    let bound = std::time::Duration::from_secs(15);

    // Half a request head, then nothing.
    let mut trickling = tokio::net::TcpStream::connect(&address).await.unwrap();
    trickling
        .write_all(b"GET /api/pages/home HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
        .await
        .unwrap();
    let answered = closed_within(&mut trickling, bound).await;
    assert!(
        answered.is_some(),
        "a half-sent head is still open after {bound:?}"
    );

    // Connected, nothing sent.
    let mut silent = tokio::net::TcpStream::connect(&address).await.unwrap();
    assert!(
        closed_within(&mut silent, bound).await.is_some(),
        "a silent connection stays open"
    );

    // A whole request is answered; the idle keep-alive connection is closed afterwards.
    let mut idle = tokio::net::TcpStream::connect(&address).await.unwrap();
    idle.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let received = closed_within(&mut idle, bound)
        .await
        .expect("idle connection closed");
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");

    // The server itself is fine.
    assert_eq!(server.get("/api/pages/home").await.status(), 200);
    server.stop().await;
}

/// Issue 46, finding 2: the admin listener has a header timeout and a per-peer connection cap
/// of its own (it had neither: one header line a second kept a connection open for 45 s and
/// more). A connection that sends a header line a second is closed within the header timeout,
/// and a peer past the cap is closed at once.
#[tokio::test]
async fn an_admin_connection_sending_a_header_line_a_second_is_closed_within_the_header_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let timeout = Duration::from_millis(1500);
    let mut config = test_config();
    config.admin.header_read_timeout = timeout;
    config.admin.max_connections_per_ip = 2;
    let server = start_with(config, &[]).await;
    let address = server.admin.trim_start_matches("http://").to_owned();

    let mut trickling = tokio::net::TcpStream::connect(&address).await.unwrap();
    let started = std::time::Instant::now();
    trickling
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n")
        .await
        .unwrap();
    let mut buffer = [0u8; 1024];
    let mut lines = 0;
    let closed = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            tokio::select! {
                read = trickling.read(&mut buffer) => if matches!(read, Ok(0) | Err(_)) { break },
                () = tokio::time::sleep(Duration::from_secs(1)) => {
                    lines += 1;
                    let line = format!("X-Line-{lines}: 1\r\n");
                    if trickling.write_all(line.as_bytes()).await.is_err() {
                        break;
                    }
                }
            }
        }
    })
    .await;
    let took = started.elapsed();
    println!("the admin connection sending a header line a second was closed after {took:?}");
    assert!(closed.is_ok(), "still open after {took:?}");
    assert!(
        took < timeout + Duration::from_secs(2),
        "closed after {took:?}, the header timeout is {timeout:?}"
    );

    // Two connections are this peer's cap: a third is closed unread.
    let _first = tokio::net::TcpStream::connect(&address).await.unwrap();
    let _second = tokio::net::TcpStream::connect(&address).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut third = tokio::net::TcpStream::connect(&address).await.unwrap();
    let refused = tokio::time::timeout(Duration::from_secs(1), third.read(&mut buffer)).await;
    assert!(
        matches!(refused, Ok(Ok(0) | Err(_))),
        "a third connection from one peer is closed at once: {refused:?}"
    );
    server.stop().await;
}

/// Issue 46, finding 2: a request on the admin listener gets its own time limit
/// (`admin.request_timeout`), as the public one does. A webhook call that sends its head and
/// then one byte of its body is answered 504 (problem+json) at the limit, not left open.
#[tokio::test]
async fn an_admin_request_past_the_admin_request_timeout_gets_504() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let limit = Duration::from_millis(1200);
    let mut config = test_config();
    config.admin.request_timeout = limit;
    let server = start_with(config, &[]).await;
    let address = server.admin.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    let started = std::time::Instant::now();
    stream
        .write_all(
            b"POST /admin/webhooks/content HTTP/1.1\r\nHost: localhost\r\n\
              Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 4096];
    let answered = tokio::time::timeout(Duration::from_secs(10), async {
        while !String::from_utf8_lossy(&received).contains("\r\n\r\n") {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(read) => received.extend_from_slice(&buffer[..read]),
            }
        }
    })
    .await;
    let took = started.elapsed();
    let text = String::from_utf8_lossy(&received).to_lowercase();
    println!("a stalled admin request was answered after {took:?}");
    assert!(answered.is_ok(), "no answer after {took:?}");
    assert!(text.starts_with("http/1.1 504"), "{text}");
    assert!(
        text.contains("content-type: application/problem+json"),
        "{text}"
    );
    assert!(
        took >= limit && took < limit + Duration::from_secs(2),
        "answered after {took:?}, the limit is {limit:?}"
    );
    server.stop().await;
}

/// A POST that sends its head and one byte of a 100-byte body, then nothing.
async fn slow_body_request(address: &str) -> tokio::net::TcpStream {
    use tokio::io::AsyncWriteExt;
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream
        .write_all(
            b"POST /api/cart/items HTTP/1.1\r\nHost: localhost\r\nX-CSRF: 1\r\n\
              Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
    stream
}

/// Whether the server has answered or closed `stream` yet (without waiting).
fn answered_yet(stream: &tokio::net::TcpStream) -> bool {
    let mut byte = [0u8; 1];
    !matches!(stream.try_read(&mut byte), Err(err) if err.kind() == std::io::ErrorKind::WouldBlock)
}

#[tokio::test]
async fn slow_work_at_the_concurrency_limit_never_blocks_probes_assets_or_cached_pages() {
    let mut config = test_config();
    config.server.max_concurrent_requests = 2;
    let server = start_with(config, &[]).await;
    for _ in 0..2 {
        assert_eq!(server.get("/api/pages/home").await.status(), 200);
    }
    // Two requests for an uncached page wait on a slow upstream, holding both slots.
    server
        .inject_fault(json!({"route": SLOW_PAGE, "latencyMs": 3000}))
        .await;
    let slow: Vec<_> = (0..2)
        .map(|_| {
            let client = server.client.clone();
            let url = server.url("/api/pages/footer");
            tokio::spawn(async move { client.get(url).send().await })
        })
        .collect();
    // Wait (bounded) until they hold every slot: a cheap API request is shed.
    let mut shed = false;
    for _ in 0..100 {
        if server.get("/api/config").await.status() == 503 {
            shed = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(shed, "the slow requests never filled the limit");
    assert_eq!(server.get("/healthz").await.status(), 200);
    assert_eq!(server.get("/readyz").await.status(), 200);
    assert_eq!(server.get(common::ASSET).await.status(), 200);
    assert_eq!(server.get("/").await.status(), 200);
    let page = server.get("/api/pages/home").await;
    assert_eq!(page.status(), 200);
    assert!(header(&page, "cache-status").contains("; hit;"));
    for request in slow {
        assert_eq!(request.await.unwrap().unwrap().status(), 200);
    }
    server.stop().await;
}

/// Issue #22, defect 2: twice `max_concurrent_requests` connections trickling their bodies
/// hold no slot (the API and a cached page answer 200 meanwhile), and each is answered 408
/// problem+json once its body is late, never 504 (the request timeout is shorter here on
/// purpose: the body's wait is not the upstream's), and its connection is closed.
#[tokio::test]
async fn slow_bodies_hold_no_slot_and_get_408_after_the_body_timeout() {
    let mut config = test_config();
    config.server.max_concurrent_requests = 2;
    config.server.body_read_timeout = Duration::from_millis(3000);
    config.server.request_timeout = Duration::from_millis(1000);
    let server = start_with(config, &[]).await;
    let address = server.base.trim_start_matches("http://").to_owned();
    for _ in 0..2 {
        assert_eq!(server.get("/api/pages/home").await.status(), 200);
    }
    let mut held = Vec::new();
    for _ in 0..4 {
        held.push(slow_body_request(&address).await);
    }
    // Every slow body is still unanswered, and the work behind the limit is not shed.
    for _ in 0..5 {
        let api = server.get("/api/config").await;
        assert_eq!(api.status(), 200, "slow bodies took the slots");
    }
    let page = server.get("/api/pages/home").await;
    assert_eq!(page.status(), 200);
    assert!(header(&page, "cache-status").contains("; hit;"));
    assert_eq!(server.get("/healthz").await.status(), 200);
    assert!(
        held.iter().all(|stream| !answered_yet(stream)),
        "a slow body was answered before its timeout: the checks above proved nothing"
    );
    let bound = std::time::Duration::from_secs(15);
    for mut stream in held {
        let received = closed_within(&mut stream, bound)
            .await
            .expect("the connection is closed after the 408");
        let text = String::from_utf8_lossy(&received);
        assert!(text.starts_with("HTTP/1.1 408"), "{text}");
        assert!(text.contains("application/problem+json"), "{text}");
        assert!(text.contains("\"request_timeout\""), "{text}");
    }
    server.stop().await;
}

/// A body larger than `max_body_bytes` (an upload, whose route allows more) is read by its
/// handler, under the same deadline: a trickle is a 408 there too.
#[tokio::test]
async fn a_slow_upload_gets_408_after_the_body_timeout() {
    use tokio::io::AsyncWriteExt;
    let mut config = test_config();
    config.server.body_read_timeout = Duration::from_millis(500);
    config.server.max_body_bytes = 1024;
    let server = start_with(config, &[]).await;
    let address = server.base.trim_start_matches("http://").to_owned();
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    stream
        .write_all(
            b"POST /api/dealer-registrations HTTP/1.1\r\nHost: localhost\r\nX-CSRF: 1\r\n\
              Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 200000\r\n\r\n\
              --b\r\nContent-Disposition: form-data; name=\"companyName\"\r\n\r\nAcme",
        )
        .await
        .unwrap();
    let received = closed_within(&mut stream, std::time::Duration::from_secs(15))
        .await
        .expect("closed after the 408");
    let text = String::from_utf8_lossy(&received);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"request_timeout\""), "{text}");
    server.stop().await;
}

/// Sends `raw` on a new connection and returns what came back before the server closed it.
async fn exchange(address: &str, raw: &[u8]) -> String {
    use tokio::io::AsyncWriteExt;
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(raw).await.unwrap();
    // `None`: still open after the bound.
    let received = closed_within(&mut stream, std::time::Duration::from_secs(15))
        .await
        .unwrap();
    String::from_utf8_lossy(&received).into_owned()
}

/// RFC 9112 §3.2: an HTTP/1.1 request without a Host, or with two, is a 400.
#[tokio::test]
async fn a_missing_or_repeated_host_is_a_400_problem() {
    let server = start_with(test_config(), &[]).await;
    let address = server.base.trim_start_matches("http://").to_owned();
    let missing = exchange(
        &address,
        b"GET /api/pages/home HTTP/1.1\r\nConnection: close\r\n\r\n",
    )
    .await;
    let repeated = exchange(
        &address,
        b"GET /api/pages/home HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\
          Connection: close\r\n\r\n",
    )
    .await;
    for answer in [&missing, &repeated] {
        assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
        assert!(answer.contains("application/problem+json"), "{answer}");
        assert!(answer.contains("\"invalid_host\""), "{answer}");
    }
    let one = exchange(
        &address,
        b"GET /healthz HTTP/1.1\r\nHost: shop.example\r\nConnection: close\r\n\r\n",
    )
    .await;
    assert!(one.starts_with("HTTP/1.1 200"), "{one}");
    // HTTP/1.0 had no Host header.
    let old = exchange(&address, b"GET /healthz HTTP/1.0\r\n\r\n").await;
    assert!(old.starts_with("HTTP/1.0 200"), "{old}");
    server.stop().await;
}

/// A connection from `source` to `address` that has been answered once (so the server has
/// accepted and counted it), kept open.
async fn held_connection(source: [u8; 4], address: std::net::SocketAddr) -> tokio::net::TcpStream {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind((source, 0).into()).unwrap();
    let mut stream = socket.connect(address).await.unwrap();
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await
        .unwrap();
    let mut received = Vec::new();
    let mut buffer = [0u8; 1024];
    while !String::from_utf8_lossy(&received).contains("\r\n\r\n") {
        let n = stream.read(&mut buffer).await.unwrap();
        assert!(n > 0, "closed before answering");
        received.extend_from_slice(&buffer[..n]);
    }
    assert!(received.starts_with(b"HTTP/1.1 200"));
    stream
}

#[tokio::test]
async fn a_peer_holding_its_connection_cap_is_refused_another_while_other_peers_are_not() {
    let mut config = test_config();
    config.server.max_connections_per_ip = 3;
    let server = start_with(config, &[]).await;
    let address = server.running.main_addr;
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(held_connection([127, 0, 0, 1], address).await);
    }
    // The fourth from the same address is closed unanswered.
    let mut refused = tokio::net::TcpStream::connect(address).await.unwrap();
    let received = closed_within(&mut refused, std::time::Duration::from_secs(15))
        .await
        .expect("the connection over the cap is closed");
    assert!(
        received.is_empty(),
        "{}",
        String::from_utf8_lossy(&received)
    );
    // Another address is not affected.
    let _other = held_connection([127, 0, 0, 2], address).await;
    // A place given back is a place for a new connection (once the server has seen it close).
    drop(held.pop());
    let mut admitted = false;
    for _ in 0..100 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(([127, 0, 0, 1], 0).into()).unwrap();
        let mut stream = socket.connect(address).await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        if stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
            .await
            .is_err()
        {
            continue;
        }
        let mut buffer = [0u8; 64];
        if matches!(stream.read(&mut buffer).await, Ok(n) if buffer[..n].starts_with(b"HTTP/1.1 200"))
        {
            admitted = true;
            break;
        }
    }
    assert!(admitted, "the place of a closed connection never came back");
    server.stop().await;
}
