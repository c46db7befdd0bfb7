-- Commerce: users, tokens, carts, orders, addresses, subscriptions, applications.
-- (Filled in by the commerce module.)
SELECT 1;
