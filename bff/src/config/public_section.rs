//! `[public]`: the values the browser may see (brand, contact addresses, third-party keys and
//! script URLs). What is served from them, `${sandbox}` resolved, is built in `public.rs`.

use serde::{Deserialize, Serialize};

use super::sandbox::SANDBOX_PLACEHOLDER;

/// Values the browser receives at `/api/config` and inside `index.html`. Everything here is
/// public by definition; secrets live in [`super::Secrets`] and never in this struct.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PublicConfig {
    pub brand_name: String,
    pub support_email: String,
    pub ffl_email: String,
    pub pro_deal_email: String,
    pub captcha: CaptchaPublic,
    pub payment: PaymentPublic,
    pub maps: MapsPublic,
    pub reviews: ReviewsPublic,
    pub analytics: AnalyticsPublic,
    pub builder: BuilderPublic,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CaptchaPublic {
    pub site_key: String,
    pub script_url: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PaymentPublic {
    pub login_id: String,
    pub client_key: String,
    pub script_url: String,
}

/// The browser's map: the provider's attribution. The tile URL it gets is always the BFF's own
/// [`super::TILE_PATH_TEMPLATE`] (the provider and its key stay server-side, see
/// [`super::MapsConfig`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MapsPublic {
    pub attribution: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReviewsPublic {
    pub app_key: String,
    pub script_url: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AnalyticsPublic {
    pub measurement_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BuilderPublic {
    pub build_url: String,
}

impl Default for PublicConfig {
    fn default() -> Self {
        Self {
            brand_name: "Talonforge Arms".to_owned(),
            support_email: "support@talonforge.example".to_owned(),
            ffl_email: "ffl@talonforge.example".to_owned(),
            pro_deal_email: "prodeal@talonforge.example".to_owned(),
            captcha: CaptchaPublic::default(),
            payment: PaymentPublic::default(),
            maps: MapsPublic::default(),
            reviews: ReviewsPublic::default(),
            analytics: AnalyticsPublic::default(),
            builder: BuilderPublic::default(),
        }
    }
}

impl Default for CaptchaPublic {
    fn default() -> Self {
        Self {
            site_key: "sandbox-site-key".to_owned(),
            script_url: format!("{SANDBOX_PLACEHOLDER}/3p/recaptcha/api.js"),
        }
    }
}

impl Default for PaymentPublic {
    fn default() -> Self {
        Self {
            login_id: "sandbox-login-id".to_owned(),
            client_key: "sandbox-public-client-key".to_owned(),
            script_url: format!("{SANDBOX_PLACEHOLDER}/3p/accept/Accept.js"),
        }
    }
}

impl Default for MapsPublic {
    fn default() -> Self {
        Self {
            attribution: "Sandbox tiles".to_owned(),
        }
    }
}

impl Default for ReviewsPublic {
    fn default() -> Self {
        Self {
            app_key: "sandbox-reviews".to_owned(),
            script_url: format!("{SANDBOX_PLACEHOLDER}/3p/reviews/widget.js"),
        }
    }
}

impl Default for AnalyticsPublic {
    fn default() -> Self {
        Self {
            measurement_id: "G-SANDBOX".to_owned(),
        }
    }
}

impl Default for BuilderPublic {
    fn default() -> Self {
        Self {
            build_url: "/Build".to_owned(),
        }
    }
}
