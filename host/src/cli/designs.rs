//! `presspack designs`: design codes, the starting packs of createPack's designCode and the
//! editor's designs.

use anyhow::{anyhow, bail};
use std::path::PathBuf;

use clap::Subcommand;
use presspack_engine::model::Catalogue;

use crate::cli::io::{pretty, read_file};
use crate::domain::designs::{self, Design};
use crate::infra::store::SharedStore;

#[derive(Subcommand)]
pub(super) enum DesignCommand {
    /// Register a design code.
    Add {
        /// The code partners pass as createPack's designCode.
        #[arg(long)]
        code: String,
        /// What customers see it called in the editor's designs (the code if not given).
        #[arg(long)]
        label: Option<String>,
        /// The product the design is for (businesscard, minicard, postcard, sticker).
        #[arg(long)]
        product: String,
        /// File with the design's pack JSON.
        #[arg(long)]
        pack: PathBuf,
        /// File with the design's physical specification JSON.
        #[arg(long)]
        physical_spec: Option<PathBuf>,
    },
    /// List the design codes.
    List,
    /// Print a design as JSON.
    Show {
        /// The design code.
        code: String,
    },
    /// Remove a design code.
    Remove {
        /// The design code.
        code: String,
    },
}

pub(super) async fn design_command(
    store: SharedStore,
    command: DesignCommand,
) -> anyhow::Result<()> {
    let store = store.as_ref();
    match command {
        DesignCommand::Add {
            code,
            label,
            product,
            pack,
            physical_spec,
        } => {
            let pack = read_file(&pack)?;
            let spec = physical_spec.as_ref().map(read_file).transpose()?;
            let design = Design::new(
                Catalogue::builtin(),
                &code,
                label.as_deref(),
                &product,
                &pack,
                spec.as_deref(),
            )
            .map_err(anyhow::Error::msg)?;
            if !designs::add(store, &design)
                .await
                .map_err(|e| anyhow!(e.message))?
            {
                bail!("design code {code:?} exists already; remove it first");
            }
            println!("added design code {code} for {product}");
        }
        DesignCommand::List => {
            for code in designs::list(store).await? {
                println!("{code}");
            }
        }
        DesignCommand::Show { code } => {
            let design = designs::find(store, &code)
                .await?
                .ok_or_else(|| anyhow!("no design code {code:?}"))?;
            println!("{}", pretty(&design)?);
        }
        DesignCommand::Remove { code } => {
            if !designs::remove(store, &code).await? {
                bail!("no design code {code:?}");
            }
            println!("removed design code {code}");
        }
    }
    Ok(())
}
