//! The one way to load an ONNX model: find ONNX Runtime, open the file, check its
//! inputs and outputs against what the caller expects, and say clearly what is wrong
//! when it does not fit.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ort::session::Session;
use ort::value::ValueType;

/// Why a model could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error(
        "ONNX Runtime could not be loaded ({0}); set ORT_DYLIB_PATH to libonnxruntime.so \
         (`scripts/setup` installs it under .venv-ort/)"
    )]
    Runtime(String),
    #[error("model file {0} does not exist (models ship in the repository under models/)")]
    Missing(PathBuf),
    #[error("model file {path} could not be opened by ONNX Runtime: {reason}")]
    Unreadable { path: PathBuf, reason: String },
    #[error("model file {path} does not fit: {what}")]
    Incompatible { path: PathBuf, what: String },
    #[error("running model {name} failed: {reason}")]
    Run { name: String, reason: String },
}

/// One expected input or output: its name and shape (`-1` where any size is fine).
#[derive(Debug, Clone, Copy)]
pub struct TensorSpec {
    pub name: &'static str,
    pub shape: &'static [i64],
}

static ENVIRONMENT: OnceLock<Result<ort::environment::Environment, String>> = OnceLock::new();

/// Candidate locations of `libonnxruntime.so` when `ORT_DYLIB_PATH` is not set: the
/// project's own `.venv-ort` (made by `scripts/setup`), relative to the working
/// directory and to the executable.
fn runtime_candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH") {
        return vec![PathBuf::from(p)];
    }
    let mut out = Vec::new();
    for root in search_roots() {
        let lib = root.join(".venv-ort/lib");
        let Ok(entries) = std::fs::read_dir(&lib) else { continue };
        for e in entries.flatten() {
            let capi = e.path().join("site-packages/onnxruntime/capi");
            if let Ok(files) = std::fs::read_dir(&capi) {
                for f in files.flatten() {
                    let name = f.file_name().to_string_lossy().to_string();
                    if name.starts_with("libonnxruntime.so") {
                        out.push(f.path());
                    }
                }
            }
        }
    }
    out
}

/// Where the repository's own files (models, `.venv-ort`) are looked for: the working
/// directory, then the repository the executable was built in (target/*/arbiter).
fn search_roots() -> Vec<PathBuf> {
    let mut roots = vec![PathBuf::from(".")];
    if let Some(root) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent()?.parent().map(Path::to_path_buf))
    {
        roots.push(root);
    }
    roots
}

/// A models folder given on the command line (relative paths such as `models`): as
/// given when it exists, else in the repository the executable was built in, so that
/// `target/release/arbiter` works from any directory.
pub fn locate_models(given: &Path) -> PathBuf {
    if given.is_absolute() || given.exists() {
        return given.to_path_buf();
    }
    search_roots()
        .into_iter()
        .map(|root| root.join(given))
        .find(|p| p.exists())
        .unwrap_or_else(|| given.to_path_buf())
}

/// The process-wide ONNX Runtime environment (loaded once).
pub fn environment() -> Result<&'static ort::environment::Environment, ModelError> {
    let env = ENVIRONMENT.get_or_init(|| {
        let candidates = runtime_candidates();
        let Some(path) = candidates.first() else {
            return Err("libonnxruntime.so not found".to_string());
        };
        let builder = ort::init_from(path).map_err(|e| format!("{}: {e}", path.display()))?;
        builder
            .with_name("arbiter")
            .build()
            .map_err(|e| format!("{}: {e}", path.display()))
    });
    env.as_ref().map_err(|e| ModelError::Runtime(e.clone()))
}

/// A loaded model whose inputs and outputs have been checked.
pub struct Model {
    pub name: String,
    pub path: PathBuf,
    pub session: Session,
}

impl Model {
    /// Loads `path` and checks that it has the given inputs and outputs (by name and,
    /// where fixed, by size). `threads` is ONNX Runtime's intra-op thread count.
    pub fn load(
        path: &Path,
        inputs: &[TensorSpec],
        outputs: &[TensorSpec],
        threads: usize,
    ) -> Result<Model, ModelError> {
        if !path.exists() {
            return Err(ModelError::Missing(path.to_path_buf()));
        }
        let env = environment()?;
        let unreadable = |e: ort::Error| ModelError::Unreadable {
            path: path.to_path_buf(),
            reason: e.to_string(),
        };
        let session = Session::builder(env)
            .map_err(unreadable)?
            .with_intra_threads(threads)
            .map_err(|e| unreadable(e.into()))?
            .commit_from_file(path)
            .map_err(unreadable)?;
        let incompatible = |what: String| ModelError::Incompatible {
            path: path.to_path_buf(),
            what,
        };
        check_outlets("input", session.inputs(), inputs).map_err(incompatible)?;
        check_outlets("output", session.outputs(), outputs).map_err(incompatible)?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        Ok(Model {
            name,
            path: path.to_path_buf(),
            session,
        })
    }

    /// Wraps a run error with the model's name.
    pub fn run_error(&self, e: impl std::fmt::Display) -> ModelError {
        ModelError::Run {
            name: self.name.clone(),
            reason: e.to_string(),
        }
    }
}

fn check_outlets(kind: &str, have: &[ort::value::Outlet], want: &[TensorSpec]) -> Result<(), String> {
    for spec in want {
        let Some(outlet) = have.iter().find(|o| o.name() == spec.name) else {
            let names: Vec<&str> = have.iter().map(|o| o.name()).collect();
            return Err(format!("no {kind} named `{}` (it has {names:?})", spec.name));
        };
        if let ValueType::Tensor { shape, .. } = outlet.dtype() {
            let dims: Vec<i64> = shape.iter().copied().collect();
            let fits =
                dims.len() == spec.shape.len() && dims.iter().zip(spec.shape).all(|(&d, &w)| w < 0 || d < 0 || d == w);
            if !fits {
                return Err(format!(
                    "{kind} `{}` has shape {dims:?}, expected {:?}",
                    spec.name, spec.shape
                ));
            }
        } else {
            return Err(format!("{kind} `{}` is not a tensor", spec.name));
        }
    }
    Ok(())
}
