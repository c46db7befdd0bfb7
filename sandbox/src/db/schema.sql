-- Sandbox-wide settings (the JWT signing key, the seed marker), so they survive restarts.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
