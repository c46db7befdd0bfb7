-- Third-party doubles: captcha tokens issued by the widget, one-time payment tokens issued by
-- the card tokenizer, the outbox of e-mails the sandbox "sent", and identity-verification
-- requests.
CREATE TABLE captcha_tokens (
    token      TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE payment_tokens (
    token      TEXT PRIMARY KEY,
    brand      TEXT NOT NULL,
    last4      TEXT NOT NULL,
    declined   INTEGER NOT NULL DEFAULT 0,   -- the documented declined test card
    created_at TEXT NOT NULL,
    used       INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE emails (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient  TEXT NOT NULL,
    kind       TEXT NOT NULL,   -- verification | password-reset | newsletter-verification | order-confirmation
    subject    TEXT NOT NULL,
    body       TEXT NOT NULL,   -- plain text
    link       TEXT,            -- the action link, absolute
    created_at TEXT NOT NULL
);

-- Identity verification (the LE/MIL double, "VeriPass"): one row per authorization request.
-- `state` is the request's handle in the authorize URL; `redirect_uri` is fixed here when the
-- request is created and never read from the browser, so the page cannot be an open redirect.
CREATE TABLE idv_sessions (
    state            TEXT PRIMARY KEY,
    user_id          INTEGER NOT NULL,
    redirect_uri     TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    expires_at       INTEGER NOT NULL,    -- unix seconds: the user must answer before this
    decision         TEXT,                -- approved | rejected, once the user answered
    code             TEXT UNIQUE,         -- the one-time code handed back with the redirect
    code_expires_at  INTEGER,             -- unix seconds
    exchanged_at     TEXT                 -- set when the code was exchanged (single use)
);
