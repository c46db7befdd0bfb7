-- Third-party doubles: captcha tokens issued by the widget, one-time payment tokens issued by
-- the card tokenizer, and the outbox of e-mails the sandbox "sent".
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
