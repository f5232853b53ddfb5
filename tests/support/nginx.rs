//! nginx as a real load balancer for the scale-out tests (`tests/mcp_lb.rs`,
//! `tests/mcp_tasks.rs`): round robin over replicas on 127.0.0.1, in the foreground.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The nginx binary: `$TOOLNEXUS_NGINX`, else `nginx` on the PATH or `/usr/sbin/nginx`.
pub(crate) fn nginx() -> String {
    if let Ok(path) = std::env::var("TOOLNEXUS_NGINX") {
        return path;
    }
    for candidate in ["nginx", "/usr/sbin/nginx"] {
        if Command::new(candidate).arg("-v").output().is_ok() {
            return candidate.to_owned();
        }
    }
    panic!(
        "nginx is missing: this test runs a real load balancer and does not skip. Install it \
         with `apt-get install nginx-light` (.ci/test does), or set TOOLNEXUS_NGINX"
    );
}

/// A port free on 127.0.0.1 just now.
pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// nginx in the foreground, one process, round robin over the replicas, on 127.0.0.1.
pub(crate) fn start_nginx(dir: &std::path::Path, port: u16, upstreams: &[u16]) -> Child {
    let servers: String = upstreams
        .iter()
        .map(|p| format!("    server 127.0.0.1:{p} max_fails=1 fail_timeout=30s;\n"))
        .collect();
    let d = dir.display();
    let conf = format!(
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid {d}/nginx.pid;\n\
         error_log {d}/error.log warn;\nevents {{ worker_connections 1024; }}\nhttp {{\n  \
         access_log off;\n  client_body_temp_path {d}/body;\n  proxy_temp_path {d}/proxy;\n  \
         fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  scgi_temp_path {d}/scgi;\n  \
         upstream mcp {{\n{servers}  }}\n  server {{\n    listen 127.0.0.1:{port};\n    \
         location /mcp {{\n      proxy_pass http://mcp;\n      proxy_http_version 1.1;\n      \
         proxy_set_header Host $http_host;\n      proxy_buffering off;\n      \
         proxy_read_timeout 60s;\n    }}\n  }}\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    let child = Command::new(nginx())
        .arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .arg("-e")
        .arg(dir.join("error.log"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("nginx starts");
    let deadline = Instant::now() + Duration::from_secs(15);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nginx did not start listening");
        std::thread::sleep(Duration::from_millis(50));
    }
    child
}
