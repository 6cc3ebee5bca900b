//! Where I/O reports to: the callback an I/O operation holds instead of the driver's state.

use crate::core::client::{Input, StreamId};

/// The driver, as an I/O operation sees it. Held past the client's life (a late completion),
/// so every method is a no-op once the client is gone.
pub(crate) trait Sink: 'static {
    /// Feeds one input to the core (and performs what it asks for).
    fn feed(&self, input: Input);
    /// The core still reads `stream` (it has not closed it): an SSE body read goes on.
    fn reads(&self, stream: StreamId) -> bool;
}
