//! Runs the engine's wasm module (built and embedded by `presspack-engine-wasm`) under
//! wasmtime: every render and measurement the service answers comes from the same wasm the
//! browser runs. Calls here are bytes in and bytes out; [`super::EngineClient`] gives them
//! types.
//!
//! A pool of instances, each already initialised with the fonts and templates, serves calls
//! one at a time per instance. A call takes a waiting place, then an instance; each holder of
//! calls (see [`super::holders`]) holds at most half the instances and half the places, so one
//! client's calls, however many, leave the other half to everyone else. Each instance has a memory limit and each call a time limit
//! (epoch interruption). A trap (a panic in the engine, exhausted memory, a timeout) fails
//! that call only: the instance is thrown away and a fresh one takes its place.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use presspack_engine::failure::FailureCode;
use presspack_engine::wire::{Failure, Op};
use tokio::sync::{Semaphore, SemaphorePermit};
use wasmtime::{
    Config, Engine, Instance, InstancePre, Linker, Memory, Module, Store, StoreLimits,
    StoreLimitsBuilder, TypedFunc,
};

use crate::infra::settings;
use crate::infra::shares::{Share, Shares};

/// The engine's wasm module (`presspack-engine-wasm`'s guest build, inflated; about 7 MB).
pub fn engine_wasm() -> Vec<u8> {
    crate::infra::compress::gunzip(presspack_engine_wasm::GUEST_WASM_GZIP)
}

/// How often the epoch advances; call time limits are whole multiples of it.
const EPOCH_TICK: Duration = Duration::from_millis(5);
/// Time limit of an instance's set-up (parsing the fonts and templates, trusted input).
const SETUP_TIMEOUT: Duration = Duration::from_secs(60);
/// An instance whose memory grew more than this beyond what its setup took (the fonts and
/// templates) is replaced after its call: a large image was ingested, and wasm memory never
/// shrinks, so an idle pool would hold hundreds of MiB. Counted from the setup so that more
/// fonts do not make every call past a fixed line (a Chinese card rasterises from a 4 MB
/// face) replace its instance.
const RETAINED_GROWTH_BYTES: usize = 192 * 1024 * 1024;

/// Layout reports of at most this many bytes of sides in all run on the calling task: a
/// business card's two sides take tens of microseconds, less than the hand-over to a
/// blocking thread and back costs; the bound keeps any one call short.
const INLINE_REPORT_BYTES: usize = 2048;

/// The engine's settings: its pool of instances and their limits.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(default)]
pub struct EngineLimits {
    /// Instances in the pool (calls run in parallel up to this many).
    #[serde(
        rename = "engine_instances",
        deserialize_with = "settings::count::<_, _, 1, 256>"
    )]
    pub instances: usize,
    /// Largest linear memory of one instance.
    #[serde(
        rename = "engine_memory_mb",
        deserialize_with = "settings::mebibytes::<_, 64, 4096>"
    )]
    pub memory_bytes: usize,
    /// Longest one call may run.
    #[serde(
        rename = "engine_timeout_ms",
        deserialize_with = "settings::millis::<_, 10, 600_000>"
    )]
    pub call_timeout: Duration,
    /// Longest one image ingest or press file may run (decoding a large image takes
    /// seconds); the same setting as the image operations' time limit.
    #[serde(
        rename = "image_timeout_ms",
        deserialize_with = "settings::millis::<_, 100, 600_000>"
    )]
    pub ingest_timeout: Duration,
    /// Calls that may wait for a free instance; more are refused at once
    /// ([`EngineCallError::Busy`]) rather than queued without end.
    #[serde(
        rename = "engine_waiting_calls",
        deserialize_with = "settings::count::<_, _, 0, 10_000>"
    )]
    pub waiting_calls: usize,
}

impl Default for EngineLimits {
    fn default() -> Self {
        EngineLimits {
            instances: thread::available_parallelism().map_or(2, |n| n.get()),
            // Enough to decode the largest image accepted (100 MP, 3 bytes a pixel) and make
            // its renditions; memory is only taken as calls need it.
            memory_bytes: 1024 * 1024 * 1024,
            call_timeout: Duration::from_secs(10),
            ingest_timeout: Duration::from_secs(60),
            waiting_calls: 64,
        }
    }
}

/// Why an engine call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EngineCallError {
    /// The engine answered with an error about the request (bad input).
    #[error("{}", .0.message)]
    Refused(Failure),
    /// The engine ran past its time limit.
    #[error("the engine took longer than {0:?}")]
    Timeout(Duration),
    /// The engine trapped (a bug, or its memory limit was reached).
    #[error("the engine failed: {0}")]
    Trapped(String),
    /// The engine could not be set up (fonts or templates refused, module broken).
    #[error("the engine could not start: {0}")]
    Setup(String),
    /// Every instance is busy and as many calls as allowed are already waiting.
    #[error("every engine instance is busy and {0} calls are already waiting")]
    Busy(usize),
    /// The caller (its key, customer or network) holds its share of the waiting places.
    #[error("this client has {0} engine calls running or waiting already, its share")]
    ShareTaken(usize),
    /// The engine answered something the host could not read.
    #[error("the engine's answer could not be read: {0}")]
    Unreadable(String),
}

/// What every instance is given before it serves calls.
#[derive(Clone)]
pub struct EngineSetup {
    /// The `Init` frame: font catalogue and faces.
    pub init_frame: Arc<Vec<u8>>,
    /// Template XML documents.
    pub templates: Arc<Vec<String>>,
}

/// An instance and its ABI (`presspack_engine::guest`).
struct Guest {
    store: Store<StoreLimits>,
    memory: Memory,
    /// Where the guest's slot lies: output and input buffer, pointer and length each.
    slot: usize,
    reserve: TypedFunc<u32, ()>,
    call: TypedFunc<(u32, u32), u32>,
    /// The memory the instance had once set up.
    setup_bytes: usize,
}

impl Guest {
    /// The slot: `[output ptr, output len, input buffer ptr, input buffer len]`.
    fn slot(&self) -> Result<[u32; 4], EngineCallError> {
        let bytes = self
            .memory
            .data(&self.store)
            .get(self.slot..self.slot + 16)
            .ok_or_else(|| EngineCallError::Trapped("slot outside the engine's memory".into()))?;
        Ok(std::array::from_fn(|i| {
            u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
        }))
    }
}

pub struct EngineHost {
    engine: Engine,
    pre: InstancePre<StoreLimits>,
    limits: EngineLimits,
    setup: EngineSetup,
    idle: Mutex<Vec<Guest>>,
    /// One per instance: held while a call runs.
    permits: Semaphore,
    /// One per instance and per call allowed to wait: held from arrival to the end.
    admission: Semaphore,
    /// Each holder's share of `admission`.
    places: Shares,
    /// Each holder's share of `permits`, waited for before the instances' queue: a holder's
    /// own calls wait behind each other, not in front of everyone else's.
    running: Shares,
}

/// What the pool is doing now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineUsage {
    /// Instances running a call.
    pub busy: usize,
    /// Calls waiting for an instance.
    pub waiting: usize,
    pub instances: usize,
}

/// A call's turn: its waiting place and its instance, with its holders' shares of both.
struct Turn<'a> {
    _place: SemaphorePermit<'a>,
    _place_share: Share<'a>,
    _running_share: Share<'a>,
    _instance: SemaphorePermit<'a>,
}

impl EngineHost {
    /// The wasmtime settings the service runs with: Cranelift optimising for speed, epoch
    /// interruption for the call time limits, and wasmtime's defaults otherwise (SIMD, and
    /// bounds checks left to guard pages). docs/benchmarks.md gives what other settings cost.
    pub fn config() -> Config {
        let mut config = Config::new();
        config.epoch_interruption(true);
        config.cranelift_opt_level(wasmtime::OptLevel::Speed);
        config
    }

    /// Compiles the module (or loads it from `cache_dir`, see [`load_module`]) and starts
    /// `limits.instances` initialised instances.
    pub fn start(
        wasm: &[u8],
        cache_dir: Option<&Path>,
        setup: EngineSetup,
        limits: EngineLimits,
    ) -> Result<Arc<EngineHost>, EngineCallError> {
        Self::start_with(&Self::config(), wasm, cache_dir, setup, limits)
    }

    /// [`EngineHost::start`] with other wasmtime settings (the engine benchmark compares
    /// them). Calls keep their time limits only while `config` keeps epoch interruption.
    pub fn start_with(
        config: &Config,
        wasm: &[u8],
        cache_dir: Option<&Path>,
        setup: EngineSetup,
        limits: EngineLimits,
    ) -> Result<Arc<EngineHost>, EngineCallError> {
        let setup_error = |e: wasmtime::Error| EngineCallError::Setup(format!("{e:#}"));
        let engine = Engine::new(config).map_err(setup_error)?;
        let module = load_module(&engine, wasm, cache_dir).map_err(setup_error)?;
        let pre = Linker::new(&engine)
            .instantiate_pre(&module)
            .map_err(setup_error)?;
        let instances = limits.instances.max(1);
        let host = Arc::new(EngineHost {
            engine: engine.clone(),
            pre,
            setup,
            idle: Mutex::new(Vec::with_capacity(instances)),
            permits: Semaphore::new(instances),
            admission: Semaphore::new(instances + limits.waiting_calls),
            places: Shares::new((instances + limits.waiting_calls) / 2),
            running: Shares::new(instances / 2),
            limits,
        });
        for _ in 0..instances {
            let guest = host.new_guest()?;
            host.idle.lock().expect("pool lock").push(guest);
        }
        // The ticker only holds a weak handle: it stops when the host is dropped.
        let weak = Arc::downgrade(&host);
        thread::Builder::new()
            .name("engine-epoch".into())
            .spawn(move || {
                while let Some(host) = weak.upgrade() {
                    host.engine.increment_epoch();
                    drop(host);
                    thread::sleep(EPOCH_TICK);
                }
            })
            .map_err(|e| EngineCallError::Setup(e.to_string()))?;
        Ok(host)
    }

    /// Instances running a call, calls waiting, and instances in the pool.
    pub fn usage(&self) -> EngineUsage {
        let instances = self.limits.instances.max(1);
        let busy = instances - self.permits.available_permits();
        let admitted = instances + self.limits.waiting_calls - self.admission.available_permits();
        EngineUsage {
            busy,
            waiting: admitted.saturating_sub(busy),
            instances,
        }
    }

    /// Runs one engine call on a pooled instance (renders on a blocking thread).
    pub async fn call(
        self: &Arc<Self>,
        op: Op,
        input: Vec<u8>,
    ) -> Result<Vec<u8>, EngineCallError> {
        self.call_with(op, input, <[u8]>::to_vec).await
    }

    /// [`EngineHost::call`], with `read` given the output where it lies in the instance's
    /// memory: a drawn side is megabytes, which the caller then need not copy out first.
    /// The instance stays taken while `read` runs.
    pub async fn call_with<T: Send + 'static>(
        self: &Arc<Self>,
        op: Op,
        input: Vec<u8>,
        read: impl FnOnce(&[u8]) -> T + Send + 'static,
    ) -> Result<T, EngineCallError> {
        let _turn = self.turn().await?;
        if matches!(
            op,
            Op::Draw | Op::Ingest | Op::Report | Op::Press | Op::Paperwork
        ) {
            let host = Arc::clone(self);
            tokio::task::spawn_blocking(move || host.call_blocking_with(op, &input, read))
                .await
                .map_err(|e| EngineCallError::Trapped(e.to_string()))?
        } else {
            // A measurement takes microseconds: handing it to a blocking thread would cost
            // more than running it here.
            self.call_blocking_with(op, &input, read)
        }
    }

    /// A place in the waiting room and then an instance's turn, held for one call; refused at
    /// once when the waiting room is full, or the caller's holders hold their share of it.
    async fn turn(&self) -> Result<Turn<'_>, EngineCallError> {
        let holders = super::holders::current();
        let place = self
            .admission
            .try_acquire()
            .map_err(|_| EngineCallError::Busy(self.limits.waiting_calls))?;
        let place_share = self
            .places
            .try_take(&holders)
            .ok_or(EngineCallError::ShareTaken(self.places.most()))?;
        let running_share = self
            .running
            .take(&holders, None)
            .await
            .ok_or_else(|| EngineCallError::Setup("engine pool closed".into()))?;
        let instance = self
            .permits
            .acquire()
            .await
            .map_err(|_| EngineCallError::Setup("engine pool closed".into()))?;
        Ok(Turn {
            _place: place,
            _place_share: place_share,
            _running_share: running_share,
            _instance: instance,
        })
    }

    /// Runs `op` on each input in turn, on one instance taken once, off the async threads:
    /// a pack's layout reports (one a side, up to hundreds) without one hand-over each.
    pub async fn call_each(
        self: &Arc<Self>,
        op: Op,
        inputs: Vec<Vec<u8>>,
    ) -> Result<Vec<Result<Vec<u8>, EngineCallError>>, EngineCallError> {
        if inputs.is_empty() {
            return Ok(Vec::new());
        }
        let _turn = self.turn().await?;
        let run_each = move |host: &EngineHost, inputs: &[Vec<u8>]| {
            inputs
                .iter()
                .map(|input| host.call_blocking(op, input))
                .collect()
        };
        if inputs.iter().map(Vec::len).sum::<usize>() <= INLINE_REPORT_BYTES {
            return Ok(run_each(self, &inputs));
        }
        let host = Arc::clone(self);
        tokio::task::spawn_blocking(move || run_each(&host, &inputs))
            .await
            .map_err(|e| EngineCallError::Trapped(e.to_string()))
    }

    /// Runs one call on the calling thread; at most `instances` may run at once.
    pub fn call_blocking(&self, op: Op, input: &[u8]) -> Result<Vec<u8>, EngineCallError> {
        self.call_blocking_with(op, input, <[u8]>::to_vec)
    }

    /// [`EngineHost::call_blocking`], with `read` given the output in place.
    pub fn call_blocking_with<T>(
        &self,
        op: Op,
        input: &[u8],
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, EngineCallError> {
        let guest = self.idle.lock().expect("pool lock").pop();
        let mut guest = match guest {
            Some(guest) => guest,
            None => self.new_guest()?,
        };
        let timeout = match op {
            Op::Ingest | Op::Press | Op::Paperwork => self.limits.ingest_timeout,
            _ => self.limits.call_timeout,
        };
        let result = self.run(&mut guest, op, input, timeout, read);
        let broken = matches!(
            result,
            Err(EngineCallError::Trapped(_) | EngineCallError::Timeout(_))
        );
        // An instance is in an unknown state after a trap; one whose memory grew large (a big
        // image was ingested) is dropped to give that memory back: wasm memory never shrinks.
        let grown = guest.memory.data_size(&guest.store) - guest.setup_bytes;
        if broken || grown > RETAINED_GROWTH_BYTES {
            drop(guest);
            if let Ok(fresh) = self.new_guest() {
                self.idle.lock().expect("pool lock").push(fresh);
            }
        } else {
            self.idle.lock().expect("pool lock").push(guest);
        }
        result
    }

    fn new_guest(&self) -> Result<Guest, EngineCallError> {
        let setup_error = |e: wasmtime::Error| EngineCallError::Setup(format!("{e:#}"));
        let limits = StoreLimitsBuilder::new()
            .memory_size(self.limits.memory_bytes)
            .instances(1)
            .build();
        let mut store = Store::new(&self.engine, limits);
        store.limiter(|limits| limits);
        store.set_epoch_deadline(ticks(SETUP_TIMEOUT));
        let instance: Instance = self.pre.instantiate(&mut store).map_err(setup_error)?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| EngineCallError::Setup("the module exports no memory".into()))?;
        let slot = instance
            .get_typed_func::<(), u32>(&mut store, "presspack_slot")
            .and_then(|slot| slot.call(&mut store, ()))
            .map_err(setup_error)?;
        let mut guest = Guest {
            reserve: instance
                .get_typed_func(&mut store, "presspack_reserve")
                .map_err(setup_error)?,
            call: instance
                .get_typed_func(&mut store, "presspack_call")
                .map_err(setup_error)?,
            slot: slot as usize,
            memory,
            store,
            setup_bytes: 0,
        };
        let setup_failed = |e: EngineCallError| EngineCallError::Setup(e.to_string());
        let ignore = |_: &[u8]| ();
        self.run(
            &mut guest,
            Op::Init,
            &self.setup.init_frame,
            SETUP_TIMEOUT,
            ignore,
        )
        .map_err(setup_failed)?;
        for xml in self.setup.templates.iter() {
            self.run(
                &mut guest,
                Op::AddTemplate,
                xml.as_bytes(),
                SETUP_TIMEOUT,
                ignore,
            )
            .map_err(setup_failed)?;
        }
        guest.setup_bytes = guest.memory.data_size(&guest.store);
        Ok(guest)
    }

    /// One call on `guest`; a successful output goes to `read` where it lies.
    fn run<T>(
        &self,
        guest: &mut Guest,
        op: Op,
        input: &[u8],
        timeout: Duration,
        read: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, EngineCallError> {
        let trap = |e: wasmtime::Error| match e.downcast_ref::<wasmtime::Trap>() {
            Some(wasmtime::Trap::Interrupt) => EngineCallError::Timeout(timeout),
            _ => EngineCallError::Trapped(format!("{e:#}")),
        };
        guest.store.set_epoch_deadline(ticks(timeout));
        let len = u32::try_from(input.len())
            .map_err(|_| EngineCallError::Trapped("input larger than 4 GiB".into()))?;
        // A small call crosses into the module once: the buffer usually has room already.
        let [_, _, mut buffer, room] = guest.slot()?;
        if len > room {
            guest.reserve.call(&mut guest.store, len).map_err(trap)?;
            buffer = guest.slot()?[2];
        }
        guest
            .memory
            .write(&mut guest.store, buffer as usize, input)
            .map_err(|e| EngineCallError::Trapped(e.to_string()))?;
        let status = guest
            .call
            .call(&mut guest.store, (op as u32, len))
            .map_err(trap)?;
        let [out_ptr, out_len, ..] = guest.slot()?.map(|n| n as usize);
        let output = guest
            .memory
            .data(&guest.store)
            .get(out_ptr..out_ptr + out_len)
            .ok_or_else(|| EngineCallError::Trapped("output outside the engine's memory".into()))?;
        match status {
            0 => Ok(read(output)),
            1 => Err(EngineCallError::Refused(
                serde_json::from_slice(output).unwrap_or_else(|_| Failure {
                    code: FailureCode::EngineError,
                    message: String::from_utf8_lossy(output).into_owned(),
                    reason: None,
                }),
            )),
            other => Err(EngineCallError::Trapped(format!(
                "the engine answered status {other} to op {op:?}"
            ))),
        }
    }
}

/// Epoch ticks in `timeout` (at least one).
fn ticks(timeout: Duration) -> u64 {
    (timeout.as_millis() / EPOCH_TICK.as_millis()).max(1) as u64
}

/// The compiled module, from `cache_dir` when an earlier start left it there (compiling
/// takes seconds; loading, milliseconds). The file name is the hash of the wasm bytes;
/// wasmtime refuses a file made by another version or configuration, and then the module
/// is compiled afresh and the file replaced. The directory must be as trusted as the
/// binary: a compiled module is native code.
pub fn load_module(
    engine: &Engine,
    wasm: &[u8],
    cache_dir: Option<&Path>,
) -> wasmtime::Result<Module> {
    use sha2::Digest;
    let Some(dir) = cache_dir else {
        return Module::new(engine, wasm);
    };
    let hash = hex::encode(&sha2::Sha256::digest(wasm)[..16]);
    let path = dir.join(format!("engine-{hash}.cwasm"));
    // SAFETY: the file was written by `Module::serialize` below into a directory only the
    // operator controls; wasmtime checks its version and configuration header.
    if let Ok(module) = unsafe { Module::deserialize_file(engine, &path) } {
        tracing::info!(path = %path.display(), "engine module loaded from the cache");
        return Ok(module);
    }
    // The first start of a build compiles for seconds before it listens: say so.
    tracing::info!(
        cache = %path.display(),
        "compiling the engine module (first start of this build; later starts load it from the cache)"
    );
    let started = std::time::Instant::now();
    let module = Module::new(engine, wasm)?;
    tracing::info!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        "compiled the engine module"
    );
    // A failed write only costs the next start a compile.
    let temporary = dir.join(format!("engine-{hash}.{}.tmp", std::process::id()));
    let bytes = module.serialize()?;
    let written = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&temporary, &bytes))
        .and_then(|()| std::fs::rename(&temporary, &path));
    if let Err(error) = written {
        tracing::warn!(path = %path.display(), %error, "could not cache the compiled engine");
        let _ = std::fs::remove_file(&temporary);
    }
    Ok(module)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::fonts::Fonts;
    use crate::infra::templates::Templates;
    use presspack_engine::render::BoxType;
    use presspack_engine::wire::{RenderHeaderInput, render_frame};

    fn host(limits: EngineLimits) -> Arc<EngineHost> {
        let fonts = Fonts::load(None).unwrap();
        let templates = Templates::load(None).unwrap();
        let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-engine-cache");
        EngineHost::start(
            &engine_wasm(),
            Some(&cache),
            EngineSetup {
                init_frame: Arc::new(fonts.init_frame()),
                templates: Arc::new(templates.documents()),
            },
            limits,
        )
        .unwrap()
    }

    fn one_instance() -> EngineLimits {
        EngineLimits {
            instances: 1,
            ..EngineLimits::default()
        }
    }

    fn render(max_side: u32) -> Vec<u8> {
        render_frame(
            &RenderHeaderInput {
                side: serde_json::json!({"type": "details", "sideNum": 1,
                    "templateCode": "businesscard_full_text_landscape",
                    "data": [{"type": "textData", "linkId": "back_line_1", "text": "Hello"}]}),
                overlays: vec![],
                box_type: BoxType::Bleed,
                max_side,
                partial: false,
            },
            &[],
        )
    }

    const MEASURE: &[u8] = br#"{"text":"Hi","fontFamily":"sans","bold":false,"italic":false,"size":3.0,"wrappingWidth":null,"leading":null}"#;

    #[test]
    fn a_trap_fails_one_call_and_the_next_succeeds() {
        let host = host(one_instance());
        let mut guest = host.idle.lock().unwrap().pop().unwrap();
        // Misuse the ABI: an input longer than the buffer is refused, not read past it.
        let refused = guest
            .call
            .call(&mut guest.store, (Op::Draw as u32, u32::MAX));
        assert_eq!(refused.unwrap(), 2);
        // A buffer larger than the instance may grow: the allocation fails and aborts.
        let trapped = guest.reserve.call(&mut guest.store, u32::MAX);
        assert!(trapped.is_err(), "an allocation failure traps");
        drop(guest);
        // That instance is gone (it was never returned); the pool makes a fresh one.
        assert!(host.call_blocking(Op::Measure, MEASURE).is_ok());
    }

    #[test]
    fn running_out_of_memory_fails_the_call_and_the_instance_is_replaced() {
        // 24 MiB beyond the fonts draws a small card but not a 4096 px one, whose canvas
        // alone is 45 MB.
        let fonts = Fonts::load(None).unwrap().guest_bytes();
        let host = host(EngineLimits {
            memory_bytes: fonts + 24 * 1024 * 1024,
            ..one_instance()
        });
        let error = host.call_blocking(Op::Draw, &render(4096)).unwrap_err();
        assert!(matches!(error, EngineCallError::Trapped(_)), "{error}");
        assert!(host.call_blocking(Op::Draw, &render(256)).is_ok());
        assert!(host.call_blocking(Op::Measure, MEASURE).is_ok());
    }

    #[test]
    fn a_call_past_its_time_limit_is_stopped() {
        let host = host(EngineLimits {
            call_timeout: Duration::from_millis(5),
            ..one_instance()
        });
        // Far more work than 5 ms allows (a 4096 px card takes hundreds of milliseconds).
        let error = host.call_blocking(Op::Draw, &render(4096)).unwrap_err();
        assert!(matches!(error, EngineCallError::Timeout(_)), "{error}");
        // The pool stays usable. On a loaded machine even a measure may overrun 5 ms (and
        // its instance is replaced too), so it may take a few tries; a broken pool never
        // answers.
        assert!((0..20).any(|_| host.call_blocking(Op::Measure, MEASURE).is_ok()));
    }

    #[tokio::test]
    async fn calls_beyond_the_waiting_room_are_refused_at_once() {
        let host = host(EngineLimits {
            waiting_calls: 2,
            ..one_instance()
        });
        // One call running and two waiting fill the host (held here as their places).
        let held = host.admission.try_acquire_many(3).unwrap();
        let error = host.call(Op::Measure, MEASURE.to_vec()).await.unwrap_err();
        assert!(matches!(error, EngineCallError::Busy(2)), "{error}");
        drop(held);
        assert!(host.call(Op::Measure, MEASURE.to_vec()).await.is_ok());
    }

    #[tokio::test]
    async fn a_holder_waits_for_its_own_share_while_others_run() {
        use crate::infra::engine::holders::Holders;
        let host = host(EngineLimits {
            instances: 2,
            ..one_instance()
        });
        // Key a runs a call (its share of two instances: one), held here.
        let running = host.running.try_take(&["key a".to_owned()]).unwrap();
        let measure = |holder: &'static str| {
            let host = Arc::clone(&host);
            Holders::new(holder)
                .scope(async move { host.call(Op::Measure, MEASURE.to_vec()).await })
        };
        assert!(
            measure("key b").await.is_ok(),
            "another holder runs at once"
        );
        let waiting = tokio::spawn(measure("key a"));
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "key a waits for its own share");
        assert_eq!(host.usage().waiting, 1);
        drop(running);
        assert!(waiting.await.unwrap().is_ok());
        // Beyond half the waiting places, a holder is refused at once.
        let places = host.places.most();
        let held: Vec<_> = (0..places)
            .map(|_| host.places.try_take(&["key a".to_owned()]).unwrap())
            .collect();
        let refused = measure("key a").await.unwrap_err();
        assert!(
            matches!(refused, EngineCallError::ShareTaken(n) if n == places),
            "{refused}"
        );
        drop(held);
    }

    #[tokio::test]
    async fn reports_small_enough_to_run_here_match_those_handed_to_a_thread() {
        let host = host(one_instance());
        let side = |n: usize| {
            serde_json::to_vec(&serde_json::json!({"type": "details", "sideNum": 1,
                "templateCode": "businesscard_full_text_landscape",
                "data": [{"type": "textData", "linkId": "back_line_1",
                          "text": "Wide ".repeat(n)}]}))
            .unwrap()
        };
        let small = vec![side(1), side(40)];
        let large: Vec<Vec<u8>> = (0..12).map(|n| side(n * 4)).collect();
        assert!(small.iter().map(Vec::len).sum::<usize>() <= INLINE_REPORT_BYTES);
        assert!(large.iter().map(Vec::len).sum::<usize>() > INLINE_REPORT_BYTES);
        for inputs in [small, large] {
            let each = host.call_each(Op::Report, inputs.clone()).await.unwrap();
            assert_eq!(each.len(), inputs.len());
            for (input, output) in inputs.iter().zip(each) {
                assert_eq!(
                    output.unwrap(),
                    host.call_blocking(Op::Report, input).unwrap()
                );
            }
        }
    }

    #[test]
    fn refusals_are_not_traps() {
        let host = host(one_instance());
        let error = host
            .call_blocking(Op::Measure, br#"{"text":"x","fontFamily":"wingdings","bold":false,"italic":false,"size":3.0,"wrappingWidth":null,"leading":null}"#)
            .unwrap_err();
        let EngineCallError::Refused(failure) = error else {
            panic!("expected a refusal, got {error}")
        };
        assert_eq!(failure.code, FailureCode::UnknownFont);
    }
}
