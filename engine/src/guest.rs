//! The plain wasm module's ABI, for hosts such as wasmtime (feature `guest`).
//!
//! Memory in, bytes out, one call at a time:
//! 1. `presspack_alloc(len) -> ptr`: the guest allocates `len` bytes; the host writes its
//!    input there.
//! 2. `presspack_call(op, ptr, len) -> status`: runs [`Op`] `op` on the input (which the
//!    guest then frees). Status 0: the output is the result; 1: the output is a
//!    [`crate::wire::Failure`] JSON; 2: `op` is unknown.
//! 3. `presspack_output_ptr()` / `presspack_output_len()`: where the output lies, valid
//!    until the next call.
//!
//! The first call must be `Init` (fonts); templates follow with `AddTemplate`. A panic
//! aborts, which the host sees as a trap and answers by replacing the instance.

use std::cell::RefCell;

use crate::render::Engine;
use crate::wire::{Failure, Op, engine_from_init};

thread_local! {
    static ENGINE: RefCell<Option<Engine>> = const { RefCell::new(None) };
    static OUTPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

#[unsafe(no_mangle)]
pub extern "C" fn presspack_alloc(len: u32) -> *mut u8 {
    Box::into_raw(vec![0u8; len as usize].into_boxed_slice()).cast()
}

/// # Safety
/// `ptr` and `len` must come from one `presspack_alloc` call, used once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn presspack_call(op: u32, ptr: *mut u8, len: u32) -> u32 {
    // SAFETY: the caller passes back exactly what presspack_alloc handed out.
    let input: Box<[u8]> =
        unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len as usize)) };
    let Some(op) = Op::from_u32(op) else {
        return 2;
    };
    let result = ENGINE.with_borrow_mut(|engine| match (op, engine.as_mut()) {
        (Op::Init, _) => engine_from_init(&input).map(|new| {
            *engine = Some(new);
            Vec::new()
        }),
        (_, Some(engine)) => engine.call(op, &input),
        (_, None) => Err(crate::render::EngineError::Request(
            "Init must be the first call".into(),
        )),
    });
    drop(input);
    let (status, output) = match result {
        Ok(output) => (0, output),
        Err(error) => (
            1,
            serde_json::to_vec(&Failure::from(&error)).expect("failures serialise"),
        ),
    };
    OUTPUT.with_borrow_mut(|out| *out = output);
    status
}

#[unsafe(no_mangle)]
pub extern "C" fn presspack_output_ptr() -> *const u8 {
    OUTPUT.with_borrow(|out| out.as_ptr())
}

#[unsafe(no_mangle)]
pub extern "C" fn presspack_output_len() -> u32 {
    OUTPUT.with_borrow(|out| out.len() as u32)
}
