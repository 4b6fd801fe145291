//! The memory budget of one query: the bytes its hash builds, aggregation tables and collected
//! rows hold are counted as they grow, and a query that would pass the budget fails with
//! [`QueryError::MemoryLimit`] naming the operator and the sizes, instead of growing until the
//! machine's out-of-memory killer ends the process.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::{QueryError, Result};

/// The environment variable that sets the default budget in bytes (a number, optionally with a
/// `K`, `M`, `G` or `T` suffix of powers of 1024, like `512M`).
pub const MEMORY_LIMIT_ENV: &str = "SMARTARRAYS_QUERY_MEMORY";

/// Bytes held by one query's operators, against its limit.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: usize,
    used: AtomicUsize,
}

impl Budget {
    pub(crate) fn new(limit: usize) -> Budget {
        Budget {
            limit,
            used: AtomicUsize::new(0),
        }
    }

    /// Counts `bytes` more for `operator`, or fails (counting nothing) when they pass the limit.
    pub(crate) fn reserve(&self, operator: &dyn Fn() -> String, bytes: usize) -> Result<()> {
        let mut used = self.used.load(Ordering::Relaxed);
        loop {
            let total = used.saturating_add(bytes);
            if total > self.limit {
                return Err(QueryError::MemoryLimit {
                    operator: operator(),
                    requested: bytes,
                    held: used,
                    limit: self.limit,
                });
            }
            match self
                .used
                .compare_exchange_weak(used, total, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(now) => used = now,
            }
        }
    }

    /// Gives `bytes` back (an operator's memory that was freed).
    pub(crate) fn release(&self, bytes: usize) {
        let _ = self
            .used
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| {
                Some(u.saturating_sub(bytes))
            });
    }
}

/// What one run of a plan holds of a [`Budget`], given back when the run ends (its result is
/// small: rows after aggregation or a top-N).
pub(crate) struct Scope<'b> {
    budget: &'b Budget,
    held: AtomicUsize,
}

impl Budget {
    pub(crate) fn scope(&self) -> Scope<'_> {
        Scope {
            budget: self,
            held: AtomicUsize::new(0),
        }
    }
}

impl Scope<'_> {
    /// [`Budget::reserve`], remembered to be given back with the scope.
    pub(crate) fn reserve(&self, operator: &dyn Fn() -> String, bytes: usize) -> Result<()> {
        self.budget.reserve(operator, bytes)?;
        self.held.fetch_add(bytes, Ordering::Relaxed);
        Ok(())
    }
}

impl Drop for Scope<'_> {
    fn drop(&mut self) {
        self.budget.release(*self.held.get_mut());
    }
}

/// The default budget: [`MEMORY_LIMIT_ENV`] when it is set, else the memory the machine can
/// hand out now (the kernel's MemAvailable), else no limit.
pub fn default_memory_limit() -> Result<usize> {
    if let Ok(text) = std::env::var(MEMORY_LIMIT_ENV) {
        return parse_bytes(&text).ok_or_else(|| QueryError::InvalidOption {
            name: MEMORY_LIMIT_ENV.to_string(),
            message: format!("{text:?} is not a number of bytes (like 1073741824, 512M or 2G)"),
        });
    }
    Ok(smartarrays::memory::current_available_memory()
        .map_or(usize::MAX, |b| usize::try_from(b).unwrap_or(usize::MAX)))
}

/// `1024`, `64K`, `512M`, `2G`, `1T` (powers of 1024; a trailing `B`/`iB` is allowed).
pub(crate) fn parse_bytes(text: &str) -> Option<usize> {
    let t = text.trim();
    let t = t
        .strip_suffix("iB")
        .or_else(|| t.strip_suffix('B'))
        .unwrap_or(t);
    let (digits, shift) = match t.chars().last()? {
        'k' | 'K' => (&t[..t.len() - 1], 10),
        'm' | 'M' => (&t[..t.len() - 1], 20),
        'g' | 'G' => (&t[..t.len() - 1], 30),
        't' | 'T' => (&t[..t.len() - 1], 40),
        _ => (t, 0),
    };
    let n: usize = digits.trim().parse().ok()?;
    n.checked_mul(1usize.checked_shl(shift)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_and_without_suffixes() {
        assert_eq!(parse_bytes("0"), Some(0));
        assert_eq!(parse_bytes("1025"), Some(1025));
        assert_eq!(parse_bytes("64K"), Some(64 << 10));
        assert_eq!(parse_bytes(" 512M "), Some(512 << 20));
        assert_eq!(parse_bytes("2G"), Some(2 << 30));
        assert_eq!(parse_bytes("2GiB"), Some(2 << 30));
        assert_eq!(parse_bytes("3gb"), None);
        assert_eq!(parse_bytes("1T"), Some(1 << 40));
        assert_eq!(parse_bytes(""), None);
        assert_eq!(parse_bytes("G"), None);
        assert_eq!(parse_bytes("-1"), None);
        assert_eq!(parse_bytes("lots"), None);
        assert_eq!(parse_bytes(&format!("{}G", usize::MAX)), None);
    }

    #[test]
    fn the_budget_refuses_what_passes_it_and_counts_nothing_then() {
        let budget = Budget::new(100);
        let name = || "the test".to_string();
        budget.reserve(&name, 60).unwrap();
        budget.reserve(&name, 40).unwrap();
        let error = budget.reserve(&name, 1).unwrap_err();
        assert!(matches!(
            error,
            QueryError::MemoryLimit {
                requested: 1,
                held: 100,
                limit: 100,
                ..
            }
        ));
        budget.release(50);
        budget.reserve(&name, 50).unwrap();
        assert!(budget.reserve(&name, usize::MAX).is_err());
        budget.release(usize::MAX);
        budget.reserve(&name, 100).unwrap();
        budget.release(100);
        {
            let scope = budget.scope();
            scope.reserve(&name, 70).unwrap();
            assert!(scope.reserve(&name, 31).is_err());
            assert!(budget.reserve(&name, 31).is_err());
        }
        // The scope gave its 70 bytes back.
        budget.reserve(&name, 100).unwrap();
    }
}
