//! The plain wasm module's ABI, for hosts such as wasmtime (feature `guest`).
//!
//! Memory in, bytes out, one call at a time; a small call is one crossing into the module.
//! The guest keeps an input buffer and a slot of four little-endian `u32`s that says where
//! things lie: `[output ptr, output len, input buffer ptr, input buffer len]`.
//! 1. `presspack_slot() -> ptr`: where the slot lies (asked once; it never moves).
//! 2. `presspack_reserve(len)`: only when the input is longer than the buffer; the guest
//!    replaces the buffer with one of `len` bytes and updates the slot.
//! 3. The host writes the input at the start of the buffer and calls
//!    `presspack_call(op, len) -> status`, which runs [`Op`] `op` on the buffer's first `len`
//!    bytes. Status 0: the output is the result; 1: the output is a
//!    [`crate::wire::Failure`] JSON; 2: `op` is unknown or `len` is beyond the buffer. The
//!    slot then says where the output lies, valid until the next call.
//!
//! The first call must be `Init` (fonts); templates follow with `AddTemplate`. A panic
//! aborts, which the host sees as a trap and answers by replacing the instance.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::render::Engine;
use crate::wire::{Failure, Op, engine_from_init};

/// An input buffer longer than this (an image) is not kept after its call: the allocator
/// gets the memory back for the next call's work.
const KEPT_INPUT_BYTES: usize = 1 << 20;

/// Read by the host in place, hence a fixed address (atomics only for safe interior
/// mutability; the module has one thread).
static SLOT: [AtomicU32; 4] = [const { AtomicU32::new(0) }; 4];

thread_local! {
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static OUTPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Writes where the output and the input buffer now lie into the slot.
fn publish() {
    INPUT.with_borrow(|input| {
        OUTPUT.with_borrow(|output| {
            let places = [output.as_ptr(), input.as_ptr()];
            let lens = [output.len(), input.len()];
            for (i, (ptr, len)) in places.into_iter().zip(lens).enumerate() {
                // wasm32: pointers and lengths are 32 bits.
                SLOT[2 * i].store(ptr as u32, Ordering::Relaxed);
                SLOT[2 * i + 1].store(len as u32, Ordering::Relaxed);
            }
        })
    });
}

#[unsafe(no_mangle)]
pub extern "C" fn presspack_slot() -> *const u32 {
    publish();
    SLOT.as_ptr().cast()
}

#[unsafe(no_mangle)]
pub extern "C" fn presspack_reserve(len: u32) {
    INPUT.with_borrow_mut(|input| *input = vec![0; len as usize]);
    publish();
}

#[unsafe(no_mangle)]
pub extern "C" fn presspack_call(op: u32, len: u32) -> u32 {
    // The host has read the last output; a large one (a canvas) is freed before the work.
    OUTPUT.take();
    let status = INPUT.with_borrow_mut(|buffer| {
        let (Some(op), Some(input)) = (Op::from_u32(op), buffer.get(..len as usize)) else {
            return 2;
        };
        let result = ENGINE.with_borrow_mut(|engine| match (op, engine.as_mut()) {
            (Op::Init, _) => engine_from_init(input).map(|new| {
                *engine = Some(new);
                Vec::new()
            }),
            (_, Some(engine)) => engine.call(op, input),
            (_, None) => Err(crate::render::EngineError::Request(
                "Init must be the first call".into(),
            )),
        });
        if buffer.len() > KEPT_INPUT_BYTES {
            *buffer = Vec::new();
        }
        let (status, output) = match result {
            Ok(output) => (0, output),
            Err(error) => (
                1,
                serde_json::to_vec(&Failure::from(&error)).expect("failures serialise"),
            ),
        };
        OUTPUT.with_borrow_mut(|out| *out = output);
        status
    });
    publish();
    status
}
