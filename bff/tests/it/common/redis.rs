//! A real `redis-server` (Debian's, installed by `.ci/run`) on a free port, stopped by PID when
//! dropped; it can be stopped and started again on the same port to test the fallbacks. It may
//! speak TLS only (certificates from a [`super::test_ca::TestCa`]) and sign clients in as an
//! ACL user, the `default` user off, as a managed Redis does.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How a server is set up, beyond a port and no persistence.
#[derive(Default, Clone)]
pub struct Options {
    /// TLS only, with this certificate and key, on the server's port (no plain port).
    pub tls: Option<ServerTls>,
    /// An ACL user and its password, with every right; the `default` user is then off.
    pub user: Option<(String, String)>,
    /// More `redis-server` arguments (`--maxmemory 2mb`, ...).
    pub args: Vec<String>,
}

#[derive(Clone)]
pub struct ServerTls {
    pub cert: PathBuf,
    pub key: PathBuf,
    /// The CA that signed `cert`: `redis-cli` verifies the server with it.
    pub ca: PathBuf,
}

pub struct RedisServer {
    pub port: u16,
    options: Options,
    /// Its working directory: a replica's full sync writes the primary's snapshot there.
    dir: tempfile::TempDir,
    child: Option<Child>,
}

impl RedisServer {
    pub fn start() -> Self {
        Self::start_with(Options::default())
    }

    pub fn start_with(options: Options) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|addr| addr.port())
            .expect("a free port");
        Self::start_on(port, options)
    }

    /// [`Self::start_with`] on `port`.
    pub fn start_on(port: u16, options: Options) -> Self {
        let mut server = Self {
            port,
            options,
            dir: tempfile::TempDir::new().expect("a temporary directory"),
            child: None,
        };
        server.resume();
        server
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The `rediss://` URL of a TLS server.
    pub fn tls_url(&self) -> String {
        format!("rediss://127.0.0.1:{}/", self.port)
    }

    /// The extra arguments the server starts with next time (see [`Self::resume`]).
    pub fn set_args(&mut self, args: &[&str]) {
        self.options.args = args.iter().map(|arg| (*arg).to_owned()).collect();
    }

    /// Makes this server a replica of `primary` and waits until it is in sync (10 s at most).
    pub fn replicate(&self, primary: &RedisServer) {
        let port = primary.port.to_string();
        assert_eq!(self.cli(&["REPLICAOF", "127.0.0.1", &port]), "OK");
        self.until_in_sync();
    }

    /// Waits until this replica's link to its primary is up and its first sync done.
    pub fn until_in_sync(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let info = self.cli(&["INFO", "replication"]);
            if info.contains("master_link_status:up") && info.contains("master_sync_in_progress:0")
            {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "no sync on {}: {info}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The password `redis-cli` signs in with from now on (after a rotation).
    pub fn set_password(&mut self, password: &str) {
        if let Some((_, current)) = &mut self.options.user {
            *current = password.to_owned();
        }
    }

    /// Arguments that make `redis-cli` reach this server (TLS, user).
    fn cli_args(&self) -> Vec<String> {
        let mut args = vec!["-p".to_owned(), self.port.to_string()];
        if let Some(tls) = &self.options.tls {
            args.extend(["--tls".to_owned(), "--cacert".to_owned()]);
            args.push(tls.ca.display().to_string());
        }
        if let Some((user, password)) = &self.options.user {
            args.extend(["--user".to_owned(), user.clone(), "--pass".to_owned()]);
            args.push(password.clone());
            args.push("--no-auth-warning".to_owned());
        }
        args
    }

    /// The server's own arguments for TLS and ACL users.
    fn server_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        match &self.options.tls {
            Some(tls) => {
                args.extend(["--port", "0", "--tls-port"].map(str::to_owned));
                args.push(self.port.to_string());
                for (flag, path) in [
                    ("--tls-cert-file", &tls.cert),
                    ("--tls-key-file", &tls.key),
                    ("--tls-ca-cert-file", &tls.ca),
                ] {
                    args.push(flag.to_owned());
                    args.push(path.display().to_string());
                }
                // Clients without a certificate are allowed, as on managed offerings.
                args.extend(["--tls-auth-clients", "optional"].map(str::to_owned));
            }
            None => {
                args.push("--port".to_owned());
                args.push(self.port.to_string());
            }
        }
        if let Some((user, password)) = &self.options.user {
            args.push("--user".to_owned());
            args.extend([user.clone(), "on".to_owned(), format!(">{password}")]);
            args.extend(["~*", "&*", "+@all", "--user", "default", "off"].map(str::to_owned));
        }
        args.extend(self.options.args.iter().cloned());
        args
    }

    /// Starts the server (again) on its port, with no persistence, and waits until it answers.
    pub fn resume(&mut self) {
        assert!(self.child.is_none(), "already running");
        let child = Command::new("redis-server")
            .args(self.server_args())
            .arg("--dir")
            .arg(self.dir.path())
            .args([
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                // A replica's first sync starts at once, not after the default 5 s.
                "--repl-diskless-sync-delay",
                "0",
                "--daemonize",
                "no",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server (apt-get install redis-server; .ci/run does)");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if self.ping() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("redis-server did not answer on port {}", self.port);
    }

    /// Freezes (`true`: SIGSTOP by PID) or thaws (SIGCONT) the server: it holds its
    /// connections but answers nothing, as a stalled replica does.
    pub fn freeze(&self, frozen: bool) {
        let child = self.child.as_ref().expect("running");
        let signal = if frozen { "-STOP" } else { "-CONT" };
        let status = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Stops the server (SIGKILL by PID: Redis going away without a goodbye).
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn ping(&self) -> bool {
        if self.options.tls.is_some() || self.options.user.is_some() {
            return self.cli(&["PING"]) == "PONG";
        }
        use std::io::{Read, Write};
        let Ok(mut stream) = std::net::TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
        if stream.write_all(b"PING\r\n").is_err() {
            return false;
        }
        let mut answer = [0u8; 7];
        stream.read_exact(&mut answer).is_ok() && &answer == b"+PONG\r\n"
    }

    /// Pipes `commands` (one per line, in Redis's inline form) through `redis-cli --pipe`, one
    /// command at a time as the server sees them (each may evict under `maxmemory`).
    pub fn pipe(&self, commands: &str) {
        use std::io::Write;
        let mut child = Command::new("redis-cli")
            .args(self.cli_args())
            .arg("--pipe")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-cli");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(commands.as_bytes())
            .unwrap();
        assert!(child.wait().unwrap().success());
    }

    /// Runs `redis-cli` against this server, for assertions on what is stored.
    pub fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(self.cli_args())
            .args(args)
            .output()
            .expect("redis-cli");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A Redis Sentinel (`redis-server <conf> --sentinel`) on a free port, watching `primary` under
/// `name` with a quorum of 2, stopped by PID when dropped.
pub struct SentinelServer {
    pub port: u16,
    child: Child,
    _dir: tempfile::TempDir,
}

impl SentinelServer {
    pub fn start(name: &str, primary: &RedisServer) -> Self {
        Self::start_watching(&[(name, primary)])
    }

    /// A sentinel watching each of `primaries` under its name (one per tier).
    pub fn start_watching(primaries: &[(&str, &RedisServer)]) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .map(|addr| addr.port())
            .expect("a free port");
        let dir = tempfile::TempDir::new().expect("a temporary directory");
        // Sentinel rewrites its configuration file, so it gets one of its own.
        let conf = dir.path().join("sentinel.conf");
        let mut text = format!(
            "port {port}\nbind 127.0.0.1\ndir {}\n",
            dir.path().display()
        );
        for (name, primary) in primaries {
            text.push_str(&format!(
                "sentinel monitor {name} 127.0.0.1 {} 2\n\
                 sentinel down-after-milliseconds {name} 400\n\
                 sentinel failover-timeout {name} 4000\n\
                 sentinel parallel-syncs {name} 1\n",
                primary.port
            ));
        }
        std::fs::write(&conf, text).expect("sentinel.conf");
        let child = Command::new("redis-server")
            .arg(&conf)
            .arg("--sentinel")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server --sentinel");
        let sentinel = Self {
            port,
            child,
            _dir: dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while sentinel.cli(&["PING"]) != "PONG" {
            assert!(
                Instant::now() < deadline,
                "sentinel did not answer on {port}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        sentinel
    }

    pub fn cli(&self, args: &[&str]) -> String {
        let output = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("redis-cli");
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// The port of the primary this sentinel names under `name`.
    pub fn primary_port(&self, name: &str) -> Option<u16> {
        let answer = self.cli(&["SENTINEL", "GET-MASTER-ADDR-BY-NAME", name]);
        answer
            .lines()
            .nth(1)
            .and_then(|port| port.trim().parse().ok())
    }
}

impl Drop for SentinelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Redis Cluster of three primaries (no replicas) made with `redis-cli --cluster create`,
/// each a [`RedisServer`] with `cluster-enabled yes` on a free port whose cluster bus port
/// (the port + 10000) is free too; stopped by PID when dropped.
pub struct ClusterServer {
    pub nodes: Vec<RedisServer>,
}

impl ClusterServer {
    pub fn start() -> Self {
        let nodes: Vec<RedisServer> = (0..3)
            .map(|_| {
                RedisServer::start_on(
                    free_cluster_port(),
                    Options {
                        args: ["--cluster-enabled", "yes", "--cluster-node-timeout", "2000"]
                            .map(str::to_owned)
                            .to_vec(),
                        ..Options::default()
                    },
                )
            })
            .collect();
        let addresses: Vec<String> = nodes
            .iter()
            .map(|node| format!("127.0.0.1:{}", node.port))
            .collect();
        let created = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addresses)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("redis-cli --cluster create");
        assert!(created.success(), "redis-cli --cluster create failed");
        let cluster = Self { nodes };
        let deadline = Instant::now() + Duration::from_secs(10);
        for node in &cluster.nodes {
            loop {
                let info = node.cli(&["CLUSTER", "INFO"]);
                if info.contains("cluster_state:ok") {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "the cluster is not ok on {}: {info}",
                    node.port
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        cluster
    }

    /// The seed the replicas are given: one node (they learn the others from it).
    pub fn url(&self) -> String {
        self.nodes[0].url()
    }

    /// The primary that holds `key` (`CLUSTER KEYSLOT`, then which node owns the slot).
    pub fn node_of(&self, key: &str) -> &RedisServer {
        let slot: u16 = self.nodes[0]
            .cli(&["CLUSTER", "KEYSLOT", key])
            .parse()
            .expect("a slot");
        self.nodes
            .iter()
            .find(|node| node.owns(slot))
            .expect("a node owns every slot")
    }

    /// The keys under `pattern` on every node.
    pub fn keys(&self, pattern: &str) -> Vec<(u16, String)> {
        self.nodes
            .iter()
            .flat_map(|node| {
                node.cli(&["--scan", "--pattern", pattern])
                    .lines()
                    .map(|key| (node.port, key.to_owned()))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

impl RedisServer {
    /// Whether this cluster node serves `slot` (its own line of `CLUSTER NODES`).
    fn owns(&self, slot: u16) -> bool {
        let nodes = self.cli(&["CLUSTER", "NODES"]);
        nodes.lines().any(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            fields.get(2).is_some_and(|flags| flags.contains("myself"))
                && fields.iter().skip(8).any(|range| {
                    let (start, end) = range.split_once('-').unwrap_or((range, range));
                    matches!(
                        (start.parse::<u16>(), end.parse::<u16>()),
                        (Ok(start), Ok(end)) if (start..=end).contains(&slot)
                    )
                })
        })
    }
}

/// A free port whose cluster bus port (+10000) is free as well.
fn free_cluster_port() -> u16 {
    for _ in 0..100 {
        let Ok(listener) = TcpListener::bind("127.0.0.1:0") else {
            continue;
        };
        let Ok(port) = listener.local_addr().map(|addr| addr.port()) else {
            continue;
        };
        let Some(bus) = port.checked_add(10_000) else {
            continue;
        };
        if TcpListener::bind(("127.0.0.1", bus)).is_ok() {
            return port;
        }
    }
    panic!("no free port pair for a cluster node");
}
