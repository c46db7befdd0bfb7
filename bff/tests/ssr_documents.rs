//! Server-rendered documents: React's first screen in the body, rendered once per cache fill
//! by the embedded engine from the web build's server bundle (`npm run build` in web/ first).
#![allow(clippy::unwrap_used)]

mod common;

use common::in_process::start_with_web_build;
use common::test_config;

#[tokio::test]
async fn smoke() {
    let app = start_with_web_build(test_config(), &[]);
    let answer = app.get("/product/summit%20lr").await;
    println!("{}", answer.status);
    println!("{:?}", answer.headers);
    println!("{}", answer.text());
    println!("{}", app.metrics().await.samples().iter().filter(|s| s.name.contains("ssr")).map(|s| format!("{s:?}")).collect::<Vec<_>>().join("\n"));
}
