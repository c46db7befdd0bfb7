//! One-time payment tokens, as a card processor issues them from its browser tokenizer.

use rusqlite::{Connection, OptionalExtension, params};

use crate::error::SandboxError;

/// What a payment token stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Card {
    pub brand: String,
    pub last4: String,
}

pub fn issue(
    conn: &Connection,
    token: &str,
    card: &Card,
    declined: bool,
    now: &str,
) -> Result<(), SandboxError> {
    conn.execute(
        "INSERT INTO payment_tokens (token, brand, last4, declined, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![token, card.brand, card.last4, declined, now],
    )?;
    Ok(())
}

/// Spends `token` for a charge: unknown or spent tokens are a bad request, the declined test
/// card is refused with the processor's message.
pub fn redeem(conn: &Connection, token: &str) -> Result<Card, SandboxError> {
    let row = conn
        .query_row(
            "SELECT brand, last4, declined, used FROM payment_tokens WHERE token = ?1",
            [token],
            |row| {
                Ok((
                    Card {
                        brand: row.get(0)?,
                        last4: row.get(1)?,
                    },
                    row.get::<_, bool>(2)?,
                    row.get::<_, bool>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((card, declined, used)) = row else {
        return Err(SandboxError::field("paymentToken", "Invalid payment token"));
    };
    if used {
        return Err(SandboxError::field(
            "paymentToken",
            "Payment token has already been used",
        ));
    }
    conn.execute(
        "UPDATE payment_tokens SET used = 1 WHERE token = ?1",
        [token],
    )?;
    if declined {
        return Err(SandboxError::Unprocessable(
            "This transaction has been declined.".to_owned(),
        ));
    }
    Ok(card)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::Db;

    fn visa() -> Card {
        Card {
            brand: "Visa".to_owned(),
            last4: "1111".to_owned(),
        }
    }

    #[test]
    fn tokens_are_single_use_and_declines_are_refused() {
        let db = Db::in_memory().unwrap();
        db.call(|conn| {
            issue(conn, "ok", &visa(), false, "now")?;
            issue(conn, "declined", &visa(), true, "now")?;
            assert_eq!(redeem(conn, "ok")?, visa());
            assert!(matches!(
                redeem(conn, "ok"),
                Err(SandboxError::Validation { .. })
            ));
            assert!(matches!(
                redeem(conn, "declined"),
                Err(SandboxError::Unprocessable(_))
            ));
            assert!(matches!(
                redeem(conn, "unknown"),
                Err(SandboxError::Validation { .. })
            ));
            Ok(())
        })
        .unwrap();
    }
}
