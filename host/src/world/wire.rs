//! A little-endian byte format for the runtime's messages between hosts.

use crate::error::{Error, Result};

/// Appends values to a message.
#[derive(Default)]
pub(crate) struct Writer(pub Vec<u8>);

impl Writer {
    pub fn u8(mut self, v: u8) -> Self {
        self.0.push(v);
        self
    }
    pub fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn u64(mut self, v: u64) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// A length-prefixed byte string.
    pub fn bytes(self, v: &[u8]) -> Self {
        let mut w = self.u64(v.len() as u64);
        w.0.extend_from_slice(v);
        w
    }
    /// A flag, then the value if there is one.
    pub fn opt_u64(self, v: Option<u64>) -> Self {
        match v {
            None => self.u8(0),
            Some(v) => self.u8(1).u64(v),
        }
    }
}

/// Reads values from a message; running past its end is an error.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], what: &'static str) -> Self {
        Reader { data, what }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.data.len() < n {
            return Err(Error::Network {
                call: "decode",
                reason: format!("a truncated {} message", self.what),
            });
        }
        let (head, rest) = self.data.split_at(n);
        self.data = rest;
        Ok(head)
    }
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.u64()?;
        self.take(usize::try_from(n).unwrap_or(usize::MAX))
    }
    /// What [`Writer::opt_u64`] wrote.
    pub fn opt_u64(&mut self) -> Result<Option<u64>> {
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(self.u64()?)),
            other => Err(Error::Network {
                call: "decode",
                reason: format!("option flag {other} in a {} message", self.what),
            }),
        }
    }
    /// Fails if anything is left: a message is read whole or rejected.
    pub fn finish(&self) -> Result<()> {
        if self.data.is_empty() {
            Ok(())
        } else {
            Err(Error::Network {
                call: "decode",
                reason: format!(
                    "{} stray bytes after a {} message",
                    self.data.len(),
                    self.what
                ),
            })
        }
    }
}

/// An optional IPC handle and offset.
pub(crate) fn put_ipc(w: Writer, ipc: Option<([u8; 64], u64)>) -> Writer {
    match ipc {
        None => w.u8(0),
        Some((h, off)) => w.u8(1).bytes(&h).u64(off),
    }
}

/// An optional IPC handle and offset, as [`put_ipc`] wrote it.
pub(crate) fn get_ipc(r: &mut Reader) -> Result<Option<([u8; 64], u64)>> {
    match r.u8()? {
        0 => Ok(None),
        1 => {
            let h: [u8; 64] = r
                .bytes()?
                .try_into()
                .map_err(|_| malformed("an IPC handle of the wrong size".into()))?;
            Ok(Some((h, r.u64()?)))
        }
        other => Err(malformed(format!("IPC flag {other}"))),
    }
}

fn malformed(reason: String) -> Error {
    Error::Network {
        call: "decode",
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_truncation() {
        let msg = Writer::default()
            .u8(7)
            .u32(0xdead_beef)
            .u64(u64::MAX)
            .bytes(b"abc")
            .opt_u64(None)
            .opt_u64(Some(9))
            .0;
        let mut r = Reader::new(&msg, "test");
        assert_eq!(r.u8().unwrap(), 7);
        assert_eq!(r.u32().unwrap(), 0xdead_beef);
        assert_eq!(r.u64().unwrap(), u64::MAX);
        assert_eq!(r.bytes().unwrap(), b"abc");
        assert_eq!(r.opt_u64().unwrap(), None);
        assert_eq!(r.opt_u64().unwrap(), Some(9));
        assert!(r.u8().is_err());
        let mut short = Reader::new(&msg[..3], "test");
        short.u8().unwrap();
        assert!(short
            .u32()
            .unwrap_err()
            .to_string()
            .contains("truncated test"));
    }
}
