-- Commerce: accounts and their tokens, carts, orders, subscriptions and applications.
-- Money is integer cents; timestamps are RFC 3339 text (created_at) or Unix seconds (expires_at).

CREATE TABLE users (
    id                INTEGER PRIMARY KEY,
    email             TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash     TEXT NOT NULL,          -- argon2id PHC string
    first_name        TEXT NOT NULL,
    last_name         TEXT NOT NULL,
    phone_number      TEXT,
    is_email_verified INTEGER NOT NULL DEFAULT 0,
    military_status   TEXT NOT NULL DEFAULT 'None'  CHECK (military_status IN ('None', 'Pending', 'Rejected', 'Verified')),
    pro_deal_status   TEXT NOT NULL DEFAULT 'None'  CHECK (pro_deal_status IN ('None', 'Pending', 'Rejected', 'Approved')),
    created_at        TEXT NOT NULL
);

-- Refresh tokens rotate and are single-use: a spent one is kept (used = 1) so its reuse is
-- detected and refused. Only a hash of the token is stored.
CREATE TABLE refresh_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);

-- Access tokens revoked by logout (by JWT id) until they expire.
CREATE TABLE revoked_access_tokens (
    jti        TEXT PRIMARY KEY,
    expires_at INTEGER NOT NULL
);

-- Guest sessions: the gid_ token is the guest's identity for carts and order reads.
CREATE TABLE guests (
    id         TEXT PRIMARY KEY CHECK (id LIKE 'gid\_%' ESCAPE '\'),
    created_at TEXT NOT NULL
);

-- One-time tokens sent by e-mail: registration verification and password reset.
CREATE TABLE user_tokens (
    token      TEXT PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('verify-email', 'password-reset')),
    expires_at INTEGER NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE addresses (
    id                 INTEGER PRIMARY KEY,
    user_id            INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    address_name       TEXT NOT NULL,
    first_name         TEXT NOT NULL,
    last_name          TEXT NOT NULL,
    company            TEXT,
    main_contact       TEXT NOT NULL,
    fax_contact        TEXT,
    address_contact    TEXT,
    address_type       INTEGER NOT NULL DEFAULT 10,
    is_default_shipping INTEGER NOT NULL DEFAULT 1,
    is_default_billing INTEGER NOT NULL DEFAULT 1,
    address_line1      TEXT NOT NULL,
    address_line2      TEXT,
    city               TEXT NOT NULL,
    state              TEXT NOT NULL,
    postal_code        TEXT NOT NULL,
    country            TEXT NOT NULL DEFAULT 'United States',
    residential        INTEGER NOT NULL DEFAULT 1
);

-- Favorites and builds: listed on the profile; their item shapes are opaque JSON.
CREATE TABLE favorites (
    id      INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    payload TEXT NOT NULL
);
CREATE TABLE builds (
    id      INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    payload TEXT NOT NULL
);

CREATE TABLE shipping_methods (
    id          INTEGER PRIMARY KEY,
    name        TEXT NOT NULL,
    price_cents INTEGER NOT NULL CHECK (price_cents >= 0),
    sort        INTEGER NOT NULL
);

-- Sales tax by two-letter state code.
CREATE TABLE tax_rates (
    state TEXT PRIMARY KEY,
    rate  REAL NOT NULL CHECK (rate >= 0 AND rate < 1)
);

CREATE TABLE promo_codes (
    code                  TEXT PRIMARY KEY COLLATE NOCASE,
    percent               REAL NOT NULL CHECK (percent > 0 AND percent <= 100),
    promotional_page_info TEXT,               -- JSON, shown with the applied discount
    active                INTEGER NOT NULL DEFAULT 1
);

-- A cart belongs to exactly one user or one guest.
CREATE TABLE carts (
    id                 INTEGER PRIMARY KEY,
    user_id            INTEGER UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    guest_id           TEXT UNIQUE REFERENCES guests (id) ON DELETE CASCADE,
    promo_code         TEXT,
    shipping_method_id INTEGER REFERENCES shipping_methods (id),
    shipping_address   TEXT,                  -- JSON from the last compute
    billing_address    TEXT,                  -- JSON from the last compute
    dealer_info        TEXT,                  -- JSON from the last compute
    updated_at         TEXT NOT NULL,
    CHECK ((user_id IS NULL) != (guest_id IS NULL))
);

CREATE TABLE cart_items (
    id               INTEGER PRIMARY KEY,
    cart_id          INTEGER NOT NULL REFERENCES carts (id) ON DELETE CASCADE,
    product_id       TEXT NOT NULL REFERENCES skus (code),
    product_name     TEXT NOT NULL,
    options          TEXT NOT NULL DEFAULT '[]', -- JSON [{label, value}]
    option_ids       TEXT NOT NULL DEFAULT '[]', -- JSON
    yotpo_product_id TEXT,
    image_url        TEXT,
    product_url      TEXT,
    notes            TEXT,
    build_id         TEXT,
    -- the chosen add-ons' price, checked against the catalogue when the line was added
    add_ons_cents    INTEGER NOT NULL DEFAULT 0 CHECK (add_ons_cents >= 0),
    quantity         INTEGER NOT NULL CHECK (quantity > 0)
);

CREATE TABLE orders (
    id                 INTEGER PRIMARY KEY,   -- numbering starts at 100001 (shop/order_store.rs)
    user_id            INTEGER REFERENCES users (id),
    guest_id           TEXT REFERENCES guests (id),
    user_email         TEXT NOT NULL,
    status             TEXT NOT NULL,
    customer_info      TEXT NOT NULL,         -- JSON as submitted, normalised by checkout
    dealer_info        TEXT,                  -- JSON, when FFL items were ordered
    subtotal_cents     INTEGER NOT NULL,
    shipping_cents     INTEGER NOT NULL,
    discount_cents     INTEGER NOT NULL,
    tax_cents          INTEGER NOT NULL,
    total_cents        INTEGER NOT NULL,
    shipping_method_id INTEGER,
    payment_brand      TEXT NOT NULL,
    payment_last4      TEXT NOT NULL,
    created_at         TEXT NOT NULL
);

CREATE TABLE order_items (
    id               INTEGER PRIMARY KEY,
    order_id         INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    product_id       TEXT NOT NULL,
    product_name     TEXT NOT NULL,
    product_url      TEXT,
    image_url        TEXT,
    options          TEXT NOT NULL DEFAULT '[]',
    unit_price_cents INTEGER NOT NULL,
    quantity         INTEGER NOT NULL,
    is_ffl_item      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE newsletter_subscriptions (
    email         TEXT PRIMARY KEY COLLATE NOCASE,
    first_name    TEXT,
    last_name     TEXT,
    is_subscribed INTEGER NOT NULL DEFAULT 1,
    is_verified   INTEGER NOT NULL DEFAULT 0,
    verify_token  TEXT UNIQUE,
    updated_at    TEXT NOT NULL
);

CREATE TABLE product_notifications (
    id           INTEGER PRIMARY KEY,
    email        TEXT NOT NULL,
    product_id   TEXT NOT NULL,
    product_name TEXT NOT NULL,
    options      TEXT NOT NULL DEFAULT '[]',
    created_at   TEXT NOT NULL
);

-- Dealer registrations, pro-deal applications and image requests, as submitted.
CREATE TABLE applications (
    id         INTEGER PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('dealer', 'prodeal', 'image-request')),
    user_id    INTEGER REFERENCES users (id),
    payload    TEXT NOT NULL,                 -- JSON of the form fields
    created_at TEXT NOT NULL
);

-- Uploaded documents, kept under <data dir>/uploads/.
CREATE TABLE uploaded_files (
    id             INTEGER PRIMARY KEY,
    application_id INTEGER NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
    field          TEXT NOT NULL,
    file_name      TEXT NOT NULL,
    content_type   TEXT,
    stored_path    TEXT NOT NULL,
    size_bytes     INTEGER NOT NULL
);
