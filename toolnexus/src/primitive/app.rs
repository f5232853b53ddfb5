//! [`McpApp`]: an MCP Apps view (the `io.modelcontextprotocol/ui` extension), an HTML
//! page served as a `ui://` resource that a host renders in a sandboxed frame beside the
//! calls of the tools that name it (see [`Tool::with_ui`](crate::Tool::with_ui)).

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::primitive::contents::ResourceContents;
use crate::primitive::resource::Resource;
use crate::primitive::template::TemplateError;

/// The MIME type of an MCP Apps view: HTML, in the profile hosts render as an app.
pub const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The MCP Apps extension's identifier, the key under `capabilities.extensions` by which
/// servers and hosts declare it.
pub const MCP_APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// An MCP Apps view: one HTML page (scripts and styles inline, as hosts load nothing
/// else the view does not declare) at a `ui://` URI, with the settings a host reads from
/// the resource's `_meta.ui`: the origins its Content Security Policy lets it reach, the
/// browser permissions it asks for, and whether it wants a border.
///
/// [`McpApp::resource`] makes the resource to hand to
/// `McpServer::resources`; a tool shows it
/// with `#[tool(ui = "ui://…")]` or [`Tool::with_ui`](crate::Tool::with_ui).
///
/// ```
/// use toolnexus::primitive::{MCP_APP_MIME_TYPE, McpApp};
///
/// let view = McpApp::new("ui://weather/view.html", "<!doctype html><p>Sunny</p>")
///     .with_connect_domains(["https://api.weather.example"])
///     .with_prefers_border(true);
/// assert_eq!(
///     view.meta()["ui"],
///     serde_json::json!({
///         "csp": {"connectDomains": ["https://api.weather.example"]},
///         "prefersBorder": true
///     })
/// );
/// let resource = view.resource().unwrap();
/// assert_eq!(resource.mime_type(), Some(MCP_APP_MIME_TYPE));
/// ```
#[derive(Clone, Debug)]
pub struct McpApp {
    uri: String,
    html: Arc<str>,
    name: Option<String>,
    description: Option<String>,
    connect_domains: Vec<String>,
    resource_domains: Vec<String>,
    frame_domains: Vec<String>,
    permissions: Vec<String>,
    prefers_border: Option<bool>,
}

impl McpApp {
    /// The view at `uri` (a `ui://` URI), whose page is `html`.
    pub fn new(uri: impl Into<String>, html: impl Into<Arc<str>>) -> McpApp {
        McpApp {
            uri: uri.into(),
            html: html.into(),
            name: None,
            description: None,
            connect_domains: Vec::new(),
            resource_domains: Vec::new(),
            frame_domains: Vec::new(),
            permissions: Vec::new(),
            prefers_border: None,
        }
    }

    /// The view at `uri` whose page is the file at `path`, read now. The error names the
    /// file.
    pub fn from_file(uri: impl Into<String>, path: impl AsRef<Path>) -> std::io::Result<McpApp> {
        let path = path.as_ref();
        let html = std::fs::read_to_string(path).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!("MCP App view {}: cannot read it: {e}", path.display()),
            )
        })?;
        Ok(McpApp::new(uri, html))
    }

    /// The same view, named `name` in `resources/list` (its URI until then).
    #[must_use]
    pub fn with_name(mut self, name: impl Into<String>) -> McpApp {
        self.name = Some(name.into());
        self
    }

    /// The same view, described by `description` in `resources/list`.
    #[must_use]
    pub fn with_description(mut self, description: impl Into<String>) -> McpApp {
        self.description = Some(description.into());
        self
    }

    /// The same view, allowed to `fetch` or open WebSockets to `origins` (the CSP's
    /// `connect-src`; none by default).
    #[must_use]
    pub fn with_connect_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> McpApp {
        self.connect_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// The same view, allowed to load scripts, styles, images, fonts and media from
    /// `origins` (none by default: everything inline).
    #[must_use]
    pub fn with_resource_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> McpApp {
        self.resource_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// The same view, allowed to frame pages from `origins` (none by default).
    #[must_use]
    pub fn with_frame_domains<S: Into<String>>(
        mut self,
        origins: impl IntoIterator<Item = S>,
    ) -> McpApp {
        self.frame_domains
            .extend(origins.into_iter().map(Into::into));
        self
    }

    /// The same view, asking the host for browser permissions: `"camera"`,
    /// `"microphone"`, `"geolocation"` or `"clipboardWrite"`. Hosts may refuse.
    #[must_use]
    pub fn with_permissions<S: Into<String>>(
        mut self,
        permissions: impl IntoIterator<Item = S>,
    ) -> McpApp {
        self.permissions
            .extend(permissions.into_iter().map(Into::into));
        self
    }

    /// The same view, asking for a visible border and background (`true`) or none
    /// (`false`); hosts decide when it is not said.
    #[must_use]
    pub fn with_prefers_border(mut self, prefers_border: bool) -> McpApp {
        self.prefers_border = Some(prefers_border);
        self
    }

    /// The view's URI.
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// The view's page.
    pub fn html(&self) -> &str {
        &self.html
    }

    /// The `_meta` object its contents carry: `{"ui": {"csp"?, "permissions"?,
    /// "prefersBorder"?}}`, each part only when said.
    pub fn meta(&self) -> Map<String, Value> {
        let mut csp = Map::new();
        for (key, origins) in [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
        ] {
            if !origins.is_empty() {
                csp.insert(key.to_owned(), Value::from(origins.clone()));
            }
        }
        let mut ui = Map::new();
        if !csp.is_empty() {
            ui.insert("csp".to_owned(), Value::Object(csp));
        }
        if !self.permissions.is_empty() {
            let granted = self
                .permissions
                .iter()
                .map(|p| (p.clone(), Value::Object(Map::new())))
                .collect();
            ui.insert("permissions".to_owned(), Value::Object(granted));
        }
        if let Some(border) = self.prefers_border {
            ui.insert("prefersBorder".to_owned(), Value::Bool(border));
        }
        let mut meta = Map::new();
        meta.insert("ui".to_owned(), Value::Object(ui));
        meta
    }

    /// The view as a resource of type [`MCP_APP_MIME_TYPE`], whose contents carry
    /// [`McpApp::meta`]. The error is a URI without a scheme.
    pub fn resource(&self) -> Result<Resource, TemplateError> {
        let html = Arc::clone(&self.html);
        let meta = self.meta();
        let resource = Resource::new_sync(self.uri.clone(), move |_request, _ctx| {
            ResourceContents::text(html.to_string())
                .with_mime_type(MCP_APP_MIME_TYPE)
                .with_meta(meta.clone())
        })?
        .with_mime_type(MCP_APP_MIME_TYPE);
        let resource = match &self.name {
            Some(name) => resource.with_name(name.clone()),
            None => resource,
        };
        Ok(match &self.description {
            Some(description) => resource.with_description(description.clone()),
            None => resource,
        })
    }
}
