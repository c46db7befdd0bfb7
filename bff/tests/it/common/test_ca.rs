//! A certificate authority made by the test with the `openssl` CLI: its certificate, and a
//! server certificate for `127.0.0.1` and `localhost` signed by it, in a temporary directory.

use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

pub struct TestCa {
    pub ca_cert: PathBuf,
    pub server_cert: PathBuf,
    pub server_key: PathBuf,
    _dir: TempDir,
}

fn openssl(dir: &Path, args: &[&str]) {
    let output = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("openssl (apt-get install openssl)");
    assert!(
        output.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

impl TestCa {
    /// A new CA (`name` in its subject) and a server certificate it signed. P-256 keys: made in
    /// milliseconds, and what managed Redis providers use.
    pub fn new(name: &str) -> Self {
        let dir = TempDir::new().unwrap();
        let path = dir.path();
        let new_key = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
        ];
        let subject = format!("/CN={name}");
        let mut ca = vec!["req", "-x509"];
        ca.extend(new_key);
        ca.extend([
            "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", &subject,
        ]);
        openssl(path, &ca);
        let mut request = vec!["req"];
        request.extend(new_key);
        request.extend([
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=localhost",
        ]);
        openssl(path, &request);
        std::fs::write(
            path.join("server.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )
        .unwrap();
        openssl(
            path,
            &[
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                "server.crt",
                "-days",
                "2",
                "-extfile",
                "server.ext",
            ],
        );
        Self {
            ca_cert: path.join("ca.crt"),
            server_cert: path.join("server.crt"),
            server_key: path.join("server.key"),
            _dir: dir,
        }
    }
}
