//! The trace export settings: `[telemetry]` when it names an endpoint, else the standard
//! OpenTelemetry environment variables, so a platform that injects `OTEL_*` into every pod (an
//! operator, a collector's sidecar convention) needs no bff-specific key.
//!
//! Who reads what:
//! - **opentelemetry-otlp** (0.33) reads, when the bff gives it no endpoint,
//!   `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as is), else `OTEL_EXPORTER_OTLP_ENDPOINT` (with
//!   `/v1/traces` appended); and always `OTEL_EXPORTER_OTLP_[TRACES_]HEADERS`, `_TIMEOUT` and
//!   `_COMPRESSION`. The bff only checks that one of the endpoint variables is set (else the
//!   exporter would default to `localhost:4318`), and leaves the URL to the exporter.
//! - **opentelemetry_sdk** (0.33) reads `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`
//!   (its resource detectors), `OTEL_BSP_*` (the batch processor) and `OTEL_SPAN_*_LIMIT`. The
//!   bff lets its detectors name the service when either variable names it.
//! - **The bff** reads `OTEL_SDK_DISABLED` (no SDK in 0.33 does) and maps `OTEL_TRACES_SAMPLER`
//!   / `OTEL_TRACES_SAMPLER_ARG` onto its ratio. The SDK reads those two only into its default
//!   sampler, which the bff replaces: its sampler is always parent-based with the hit path's
//!   pre-sampling, and the ratio is a number the hit path and the web app's runtime config share.
//!
//! When `[telemetry] otlp_endpoint` is set the configuration wins: the bff reads none of these
//! (the exporter and the SDK still read their own, as above, except the endpoint).

use crate::config::TelemetryConfig;

/// Where spans are exported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceExport {
    /// Nowhere: spans still get ids (log lines, `traceresponse`), nothing is sent.
    Off,
    /// `[telemetry] otlp_endpoint`, as configured.
    Configured(String),
    /// The endpoint the exporter resolves from `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`; the variable named here, for the start-up log.
    Environment(&'static str),
}

/// The tracing settings the process runs with, resolved once at start-up.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceSettings {
    pub export: TraceExport,
    /// The root sampling ratio (0 to 1): `telemetry.sample_ratio`, or `OTEL_TRACES_SAMPLER`'s.
    pub sample_ratio: f64,
    /// The `service.name` the bff sets; `None` when `OTEL_SERVICE_NAME` or
    /// `OTEL_RESOURCE_ATTRIBUTES` names the service, for the SDK's detectors to apply.
    pub service_name: Option<String>,
    /// Variables that were set but could not be honoured, for the start-up log.
    pub warnings: Vec<String>,
}

pub const OTEL_SDK_DISABLED: &str = "OTEL_SDK_DISABLED";
pub const OTEL_SERVICE_NAME: &str = "OTEL_SERVICE_NAME";
pub const OTEL_RESOURCE_ATTRIBUTES: &str = "OTEL_RESOURCE_ATTRIBUTES";
pub const OTEL_TRACES_SAMPLER: &str = "OTEL_TRACES_SAMPLER";
pub const OTEL_TRACES_SAMPLER_ARG: &str = "OTEL_TRACES_SAMPLER_ARG";
pub const OTEL_EXPORTER_OTLP_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_PROTOCOL";
pub const OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: &str = "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL";

impl TraceSettings {
    /// The settings from `config` and the environment `env` (a variable's value by name; the
    /// process's is `|name| std::env::var(name).ok()`). An empty variable counts as unset.
    pub fn resolve(config: &TelemetryConfig, env: impl Fn(&str) -> Option<String>) -> Self {
        let configured = Self {
            export: TraceExport::Off,
            sample_ratio: config.sample_ratio,
            service_name: Some(config.service_name.clone()),
            warnings: Vec::new(),
        };
        let endpoint = config.otlp_endpoint.trim();
        if !endpoint.is_empty() {
            return Self {
                export: TraceExport::Configured(endpoint.to_owned()),
                ..configured
            };
        }
        let var = |name: &str| {
            env(name)
                .map(|value| value.trim().to_owned())
                .filter(|value| !value.is_empty())
        };
        if var(OTEL_SDK_DISABLED).is_some_and(|value| value.eq_ignore_ascii_case("true")) {
            return configured;
        }
        let mut settings = configured;
        settings.export = [
            opentelemetry_otlp::OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
            opentelemetry_otlp::OTEL_EXPORTER_OTLP_ENDPOINT,
        ]
        .into_iter()
        .find(|name| var(name).is_some())
        .map_or(TraceExport::Off, TraceExport::Environment);
        let names_service = var(OTEL_SERVICE_NAME).is_some()
            || var(OTEL_RESOURCE_ATTRIBUTES).is_some_and(|attributes| {
                attributes
                    .split(',')
                    .any(|pair| pair.split('=').next().map(str::trim) == Some("service.name"))
            });
        if names_service {
            settings.service_name = None;
        }
        if let Some(sampler) = var(OTEL_TRACES_SAMPLER) {
            match sampler_ratio(&sampler, var(OTEL_TRACES_SAMPLER_ARG).as_deref()) {
                Ok(ratio) => settings.sample_ratio = ratio,
                Err(problem) => settings.warnings.push(format!(
                    "{problem}; telemetry.sample_ratio ({}) applies",
                    settings.sample_ratio
                )),
            }
        }
        for name in [
            OTEL_EXPORTER_OTLP_TRACES_PROTOCOL,
            OTEL_EXPORTER_OTLP_PROTOCOL,
        ] {
            if let Some(protocol) = var(name)
                && protocol != "http/protobuf"
            {
                settings.warnings.push(format!(
                    "{name}={protocol}: the bff exports over http/protobuf only"
                ));
            }
        }
        settings
    }
}

/// The root ratio an `OTEL_TRACES_SAMPLER` (and its argument) means. The bff's sampler is
/// parent-based whatever the name says: a caller's sampled `traceparent` is honoured within
/// `telemetry.traceparent_sampled_per_minute`.
fn sampler_ratio(sampler: &str, argument: Option<&str>) -> Result<f64, String> {
    match sampler {
        "always_on" | "parentbased_always_on" => Ok(1.0),
        "always_off" | "parentbased_always_off" => Ok(0.0),
        "traceidratio" | "parentbased_traceidratio" => argument
            .and_then(|argument| argument.parse::<f64>().ok())
            .filter(|ratio| (0.0..=1.0).contains(ratio))
            .ok_or_else(|| {
                format!(
                    "{OTEL_TRACES_SAMPLER}={sampler} needs {OTEL_TRACES_SAMPLER_ARG} between 0 and 1, not {argument:?}"
                )
            }),
        other => Err(format!(
            "{OTEL_TRACES_SAMPLER}={other} is not supported (always_on, always_off, traceidratio and their parentbased_ forms are)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn config(endpoint: &str) -> TelemetryConfig {
        TelemetryConfig {
            otlp_endpoint: endpoint.to_owned(),
            service_name: "bff".to_owned(),
            sample_ratio: 0.25,
            ..TelemetryConfig::default()
        }
    }

    /// `resolve` over a made-up environment: no process variable is read or written, so these
    /// tests cannot race others.
    fn resolve(config: &TelemetryConfig, vars: &[(&str, &str)]) -> TraceSettings {
        let env: HashMap<String, String> = vars
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect();
        TraceSettings::resolve(config, |name| env.get(name).cloned())
    }

    const EVERYTHING: &[(&str, &str)] = &[
        (
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            "http://collector:4318/v1/traces",
        ),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
        ("OTEL_SERVICE_NAME", "storefront-bff"),
        ("OTEL_TRACES_SAMPLER", "parentbased_traceidratio"),
        ("OTEL_TRACES_SAMPLER_ARG", "0.5"),
    ];

    #[test]
    fn the_configured_endpoint_wins_over_every_variable() {
        let settings = resolve(&config(" http://configured:4318/v1/traces "), EVERYTHING);
        assert_eq!(
            settings,
            TraceSettings {
                export: TraceExport::Configured("http://configured:4318/v1/traces".to_owned()),
                sample_ratio: 0.25,
                service_name: Some("bff".to_owned()),
                warnings: vec![],
            }
        );
    }

    #[test]
    fn nothing_configured_nor_set_exports_nothing() {
        let settings = resolve(&config(""), &[("OTEL_EXPORTER_OTLP_ENDPOINT", "  ")]);
        assert_eq!(settings.export, TraceExport::Off);
        assert_eq!(settings.sample_ratio, 0.25);
        assert_eq!(settings.service_name.as_deref(), Some("bff"));
    }

    #[test]
    fn the_traces_endpoint_variable_comes_before_the_generic_one() {
        let settings = resolve(&config(""), EVERYTHING);
        assert_eq!(
            settings.export,
            TraceExport::Environment("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        );
        let generic = resolve(
            &config(""),
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")],
        );
        assert_eq!(
            generic.export,
            TraceExport::Environment("OTEL_EXPORTER_OTLP_ENDPOINT")
        );
    }

    #[test]
    fn otel_sdk_disabled_turns_the_export_off_and_ignores_the_rest() {
        let mut vars = EVERYTHING.to_vec();
        vars.push(("OTEL_SDK_DISABLED", "TRUE"));
        let settings = resolve(&config(""), &vars);
        assert_eq!(settings.export, TraceExport::Off);
        assert_eq!(settings.sample_ratio, 0.25);
        // Any other value leaves the SDK on (the specification: only "true" disables).
        vars.pop();
        vars.push(("OTEL_SDK_DISABLED", "false"));
        assert_ne!(resolve(&config(""), &vars).export, TraceExport::Off);
    }

    #[test]
    fn the_service_is_named_by_the_variables_when_they_name_it() {
        assert_eq!(resolve(&config(""), EVERYTHING).service_name, None);
        let from_attributes = resolve(
            &config(""),
            &[(
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment.name=prod, service.name = shop",
            )],
        );
        assert_eq!(from_attributes.service_name, None);
        let other_attributes = resolve(
            &config(""),
            &[("OTEL_RESOURCE_ATTRIBUTES", "service.namespace=shop")],
        );
        assert_eq!(other_attributes.service_name.as_deref(), Some("bff"));
    }

    #[test]
    fn the_standard_samplers_set_the_ratio() {
        let ratio = |sampler: &str, argument: Option<&str>| {
            let mut vars = vec![("OTEL_TRACES_SAMPLER", sampler)];
            if let Some(argument) = argument {
                vars.push(("OTEL_TRACES_SAMPLER_ARG", argument));
            }
            let settings = resolve(&config(""), &vars);
            (settings.sample_ratio, settings.warnings.len())
        };
        assert_eq!(ratio("always_on", None), (1.0, 0));
        assert_eq!(ratio("parentbased_always_off", None), (0.0, 0));
        assert_eq!(ratio("traceidratio", Some("0.1")), (0.1, 0));
        assert_eq!(ratio("parentbased_traceidratio", Some("0.5")), (0.5, 0));
        // Unusable: the configured ratio, and a warning saying why.
        assert_eq!(ratio("parentbased_traceidratio", Some("2")), (0.25, 1));
        assert_eq!(ratio("traceidratio", None), (0.25, 1));
        assert_eq!(ratio("jaeger_remote", None), (0.25, 1));
    }

    #[test]
    fn a_protocol_other_than_http_protobuf_is_warned_about() {
        let settings = resolve(
            &config(""),
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317"),
                ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
            ],
        );
        assert_eq!(settings.warnings.len(), 1, "{:?}", settings.warnings);
        assert!(settings.warnings[0].contains("grpc"));
    }
}
