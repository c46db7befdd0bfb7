//! The steady traffic of the failover drill: page hits, cart changes, checkouts (each failed one
//! retried once, with its key, on another replica) and sign-outs with replays of the signed-out
//! cookies, spread over the replicas until told to stop. Nothing is asserted while it runs:
//! every answer is written down, and the drill judges the record once the traffic is over.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::TestServer;
use super::browser::{CAPTCHA, PASSWORD, SHOPPER};
use super::replicas::Replicas;
use super::shopping::{Placed, checkout, checkout_body};

/// Bounds every request of the drill: a replica that hangs fails its request, not the test run.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// Pages the traffic reads; the drill's own probes read others, so the two never meet in a cache.
pub const LOAD_PAGES: [&str; 5] = ["home", "contactus", "dealerlocator", "warranty", "faq"];
/// The page the drill purges right before the kill, watched on every replica.
pub const ABOUT: &str = "/api/pages/aboutus";
/// Carts that grow by one line's quantity at a time, over every replica.
const CARTS: usize = 3;
/// Checkout lines, alternated: each has 25 in stock, and every order takes one.
const CHECKOUT_LINES: [(&str, &str, bool); 2] = [
    ("TF-QDS", "QD Sling Mount", true),
    ("TF-CAP-BLK-SM", "Talon Logo Cap", false),
];
const CART_SKU: (&str, &str) = ("TF-QDS", "QD Sling Mount");

/// An answer, or why there was none.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub cache_status: String,
    pub set_cookie: Option<String>,
    pub text: String,
}

/// `method path` on `replica` with `cookie` and `body`, within [`REQUEST_TIMEOUT`]; `Err` with
/// the transport error when no answer came.
pub async fn send(
    replica: &TestServer,
    method: reqwest::Method,
    path: &str,
    cookie: Option<&str>,
    body: Option<&Value>,
) -> Result<Reply, String> {
    let mut request = replica
        .client
        .request(method, replica.url(path))
        .timeout(REQUEST_TIMEOUT)
        .header("x-csrf", "1");
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.map_err(|error| error.to_string())?;
    let status = response.status().as_u16();
    let cache_status = super::header(&response, "cache-status").to_owned();
    let set_cookie = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .find(|value| !value.contains("Max-Age=0"))
        .and_then(|value| value.split(';').next())
        .map(str::to_owned);
    let text = response.text().await.map_err(|error| error.to_string())?;
    Ok(Reply {
        status,
        cache_status,
        set_cookie,
        text,
    })
}

/// One checkout key: its answers in order (the first attempt, then the retry if it failed).
#[derive(Debug)]
pub struct CheckoutRun {
    pub key: String,
    pub answers: Vec<Result<Placed, String>>,
}

/// A cart and what was done to it: adds answered 200, and adds sent.
#[derive(Debug)]
pub struct CartRun {
    pub cookie: String,
    pub acknowledged: u64,
    pub attempted: u64,
}

/// A session signed out during the drill.
#[derive(Debug, Clone)]
pub struct SignedOut {
    pub cookie: String,
    /// The replica that answered the sign-out.
    pub replica: usize,
    pub answered_at: Instant,
}

/// A replay of a signed-out cookie that a replica accepted (`signedIn: true`).
#[derive(Debug, Clone)]
pub struct Revived {
    pub sent_at: Instant,
    pub replica: usize,
    pub signed_out: SignedOut,
}

/// One read of the purged page.
#[derive(Debug, Clone)]
pub struct AboutRead {
    pub sent_at: Instant,
    pub replica: usize,
    /// It lists open positions: the body of before the purge.
    pub old_body: bool,
    pub cache_status: String,
}

#[derive(Debug, Default)]
pub struct Record {
    /// Requests sent, by kind.
    pub sent: BTreeMap<&'static str, u64>,
    /// Requests that failed (no answer, or not the answer a shopper expects), by kind.
    pub failed: BTreeMap<&'static str, u64>,
    pub checkouts: Vec<CheckoutRun>,
    pub carts: Vec<CartRun>,
    pub signed_out: Vec<SignedOut>,
    pub revived: Vec<Revived>,
    pub about: Vec<AboutRead>,
}

/// The traffic, shared by its workers.
pub struct Load<'a> {
    replicas: &'a Replicas,
    stop: AtomicBool,
    record: Mutex<Record>,
}

impl<'a> Load<'a> {
    /// Traffic over `replicas`, with [`CARTS`] guest carts made beforehand (one line each).
    pub async fn new(replicas: &'a Replicas) -> Self {
        let load = Self {
            replicas,
            stop: AtomicBool::new(false),
            record: Mutex::new(Record::default()),
        };
        for index in 0..CARTS {
            let replica = &replicas.replicas[index % replicas.replicas.len()];
            let added = add_line(replica, None, CART_SKU.0, CART_SKU.1, true)
                .await
                .expect("a cart before the drill");
            assert_eq!(added.status, 200, "{}", added.text);
            let cookie = added.set_cookie.expect("a guest cookie");
            load.lock().carts.push(CartRun {
                cookie,
                acknowledged: 1,
                attempted: 1,
            });
        }
        load
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Record> {
        self.record
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn running(&self) -> bool {
        !self.stop.load(Ordering::Relaxed)
    }

    /// Ends every worker after its current step.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// What happened, once the workers have returned.
    pub fn into_record(self) -> Record {
        self.record
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn count(&self, kind: &'static str, ok: bool) {
        let mut record = self.lock();
        *record.sent.entry(kind).or_default() += 1;
        if !ok {
            *record.failed.entry(kind).or_default() += 1;
        }
    }

    fn replica(&self, index: usize) -> &'a TestServer {
        &self.replicas.replicas[index % self.replicas.replicas.len()]
    }

    /// Every replica reads one of [`LOAD_PAGES`] at a time, together.
    pub async fn pages(&self) {
        let mut round = 0;
        while self.running() {
            let page = format!("/api/pages/{}", LOAD_PAGES[round % LOAD_PAGES.len()]);
            let reads = self
                .replicas
                .replicas
                .iter()
                .map(|replica| send(replica, reqwest::Method::GET, &page, None, None));
            for reply in futures::future::join_all(reads).await {
                self.count(
                    "page",
                    matches!(reply, Ok(ref reply) if reply.status == 200),
                );
            }
            round += 1;
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    /// The carts grow by one, each on the next replica in turn.
    pub async fn carts(&self) {
        let mut round = 0;
        while self.running() {
            for cart in 0..CARTS {
                let cookie = self.lock().carts[cart].cookie.clone();
                let replica = self.replica(round + cart);
                let added = add_line(replica, Some(&cookie), CART_SKU.0, CART_SKU.1, true).await;
                self.count(
                    "cart_add",
                    matches!(added, Ok(ref reply) if reply.status == 200),
                );
                let mut record = self.lock();
                record.carts[cart].attempted += 1;
                if let Ok(Reply {
                    status: 200,
                    set_cookie: Some(cookie),
                    ..
                }) = added
                {
                    // The session as the last answer sealed it, as a browser keeps it.
                    record.carts[cart].cookie = cookie;
                    record.carts[cart].acknowledged += 1;
                }
            }
            round += 1;
            tokio::time::sleep(Duration::from_millis(60)).await;
        }
    }

    /// A guest fills a cart and checks out on the next replica in turn; a checkout that fails
    /// is retried once, with its key, on another replica.
    pub async fn checkouts(&self) {
        let mut round = 0;
        while self.running() {
            let (sku, name, options) = CHECKOUT_LINES[round % CHECKOUT_LINES.len()];
            let first = self.replica(round);
            let cart = add_line(first, None, sku, name, options).await;
            let cookie = match cart {
                Ok(Reply {
                    status: 200,
                    set_cookie: Some(cookie),
                    ..
                }) => cookie,
                _ => {
                    self.count("checkout_cart", false);
                    round += 1;
                    continue;
                }
            };
            self.count("checkout_cart", true);
            let body = checkout_body(self.replicas).await;
            let key = format!("drill-{}", uuid::Uuid::new_v4());
            let mut answers = vec![place(first, &cookie, &key, &body).await];
            let failed = |answer: &Result<Placed, String>| !matches!(answer, Ok(placed) if placed.status == 200);
            self.count("checkout", !failed(&answers[0]));
            if failed(&answers[0]) {
                let retry = place(self.replica(round + 1), &cookie, &key, &body).await;
                self.count("checkout_retry", !failed(&retry));
                answers.push(retry);
            }
            self.lock().checkouts.push(CheckoutRun { key, answers });
            round += 1;
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    /// The shopper signs in on one replica and out on the next; then the last few signed-out
    /// cookies (and the first, kept from before the kill) are replayed on every replica.
    pub async fn sign_outs(&self) {
        let mut round = 0;
        while self.running() {
            let signed_in = send(
                self.replica(round),
                reqwest::Method::POST,
                "/api/auth/login",
                None,
                Some(&json!({"email": SHOPPER, "password": PASSWORD, "captcha": CAPTCHA})),
            )
            .await;
            let cookie = match signed_in {
                Ok(Reply {
                    status: 200,
                    set_cookie: Some(cookie),
                    ..
                }) => cookie,
                _ => {
                    self.count("sign_in", false);
                    round += 1;
                    continue;
                }
            };
            self.count("sign_in", true);
            let out = round + 1;
            let signed_out = send(
                self.replica(out),
                reqwest::Method::POST,
                "/api/auth/logout",
                Some(&cookie),
                Some(&json!({})),
            )
            .await;
            let ok = matches!(signed_out, Ok(ref reply) if reply.status == 204);
            self.count("sign_out", ok);
            if ok {
                self.lock().signed_out.push(SignedOut {
                    cookie,
                    replica: out % self.replicas.replicas.len(),
                    answered_at: Instant::now(),
                });
            }
            let replayed: Vec<SignedOut> = {
                let record = self.lock();
                let recent = record.signed_out.iter().rev().take(3);
                recent.chain(record.signed_out.first()).cloned().collect()
            };
            for signed_out in replayed {
                for replica in 0..self.replicas.replicas.len() {
                    self.replay(replica, &signed_out).await;
                }
            }
            round += 1;
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// `GET /api/session` with a signed-out cookie on `replica`; an answer that it is signed in
    /// is written down.
    pub async fn replay(&self, replica: usize, signed_out: &SignedOut) {
        let sent_at = Instant::now();
        let reply = send(
            self.replica(replica),
            reqwest::Method::GET,
            "/api/session",
            Some(&signed_out.cookie),
            None,
        )
        .await;
        let answered = reply.as_ref().is_ok_and(|reply| reply.status < 500);
        self.count("replay", answered);
        if let Ok(reply) = reply
            && signed_in(&reply.text)
        {
            self.lock().revived.push(Revived {
                sent_at,
                replica,
                signed_out: signed_out.clone(),
            });
        }
    }

    /// Every replica reads the page the drill purges, over and over.
    pub async fn watch_about(&self) {
        while self.running() {
            let reads = (0..self.replicas.replicas.len()).map(|replica| async move {
                let sent_at = Instant::now();
                let reply = send(
                    self.replica(replica),
                    reqwest::Method::GET,
                    ABOUT,
                    None,
                    None,
                )
                .await;
                (replica, sent_at, reply)
            });
            for (replica, sent_at, reply) in futures::future::join_all(reads).await {
                let Ok(reply) = reply.as_ref().map_err(Clone::clone).and_then(|reply| {
                    (reply.status == 200)
                        .then_some(reply)
                        .ok_or_else(|| reply.text.clone())
                }) else {
                    self.count("about", false);
                    continue;
                };
                self.count("about", true);
                self.lock().about.push(AboutRead {
                    sent_at,
                    replica,
                    old_body: lists_positions(&reply.text),
                    cache_status: reply.cache_status.clone(),
                });
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Whether an About Us body lists open positions (the sandbox's `no-positions` variant, set
/// before the purge, takes them away).
pub fn lists_positions(text: &str) -> bool {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|page| page["lookingForListContent"].as_array().map(Vec::len))
        .is_some_and(|positions| positions > 0)
}

/// Whether a `GET /api/session` answer says signed in.
pub fn signed_in(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|body| body["signedIn"] == true)
}

/// Adds one of `sku` to the cart of `cookie` (a new guest's without one).
async fn add_line(
    replica: &TestServer,
    cookie: Option<&str>,
    sku: &str,
    name: &str,
    with_options: bool,
) -> Result<Reply, String> {
    let mut line = json!({"productId": sku, "productName": name, "quantity": 1});
    if with_options {
        line["options"] = json!([{"label": "Color", "value": "Black"}]);
    }
    let reply = send(
        replica,
        reqwest::Method::POST,
        "/api/cart/items",
        cookie,
        Some(&line),
    )
    .await?;
    Ok(Reply {
        set_cookie: reply.set_cookie.clone().or(cookie.map(str::to_owned)),
        ..reply
    })
}

/// A checkout within [`REQUEST_TIMEOUT`].
async fn place(
    replica: &TestServer,
    cookie: &str,
    key: &str,
    body: &Value,
) -> Result<Placed, String> {
    tokio::time::timeout(REQUEST_TIMEOUT, checkout(replica, cookie, key, body))
        .await
        .map_err(|_| format!("no answer within {REQUEST_TIMEOUT:?}"))
}

/// The quantity of `sku` in the cart of `cookie`, as `replica` reads it.
pub async fn cart_quantity(replica: &TestServer, cookie: &str) -> u64 {
    let cart = send(
        replica,
        reqwest::Method::GET,
        "/api/cart",
        Some(cookie),
        None,
    )
    .await
    .expect("the cart");
    assert_eq!(cart.status, 200, "{}", cart.text);
    let cart: Value = serde_json::from_str(&cart.text).expect("a cart");
    cart["items"]
        .as_array()
        .expect("cart items")
        .iter()
        .filter(|item| item["productId"] == CART_SKU.0)
        .map(|item| item["quantity"].as_u64().expect("a quantity"))
        .sum()
}
