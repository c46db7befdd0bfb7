-- The sellable side of the catalogue: one row per sku, seeded from the catalogue fixtures.
-- Prices are integer cents; the price map (GET /Products) and carts read them from here, and
-- checkout decrements stock here.
CREATE TABLE skus (
    code              TEXT PRIMARY KEY,
    product_title     TEXT NOT NULL,            -- the product's title, as in /strapi/products/{title}
    product_name      TEXT NOT NULL,
    price_cents       INTEGER NOT NULL CHECK (price_cents >= 0),
    discount_percent  REAL NOT NULL DEFAULT 0 CHECK (discount_percent >= 0 AND discount_percent < 100),
    stock             INTEGER NOT NULL CHECK (stock >= 0),
    ffl_item          INTEGER NOT NULL DEFAULT 0,
    receiver_item     INTEGER NOT NULL DEFAULT 0,
    restricted_states TEXT NOT NULL DEFAULT '[]', -- JSON array of two-letter state codes
    restricted_zips   TEXT NOT NULL DEFAULT '[]'  -- JSON array of zip codes
);
CREATE INDEX skus_by_product ON skus (product_title);

-- The variant a content page is served in when a request names none (`PUT
-- /sandbox/pages/{name}/variant`), so a demo through the BFF can show, say, About Us without open
-- positions. No row: the default content.
CREATE TABLE content_page_variants (
    page    TEXT PRIMARY KEY,
    variant TEXT NOT NULL
);
