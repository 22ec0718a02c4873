/**
 * The commented default config `cra init` writes. It shows the three-tier model cascade
 * (docs/design.md, Model tiers): tiny judges for yes/no stages, a 4B reasoning model, a coder.
 */
export const DEFAULT_CONFIG_TEMPLATE = `# Clean Room configuration.
# The user-level file lives in the data folder; a repository's own config.toml overrides it key by key.
# Every key below can also be edited on the Settings and Models pages; your comments are kept.

[models]
# "ollama" (default), "openai_compat" (llama-server, vLLM, LM Studio: /v1/chat/completions) or
# "builtin" (llama.cpp inside the app; model names are those of the built-in model store).
provider = "ollama"
# Code generation (execute stage in implement mode).
coding = "qwen2.5-coder:3b"
# Task analysis, retrieval judgments, plans.
reasoning = "qwen3:4b"
# Embeddings for vector search (optional; search works offline without one).
embedding = "nomic-embed-text"
# Model server address. Unset: $OLLAMA_HOST, else http://127.0.0.1:11434.
# base_url = "http://127.0.0.1:11434"
# Context window sent with every call (Ollama's default of 4k silently truncates longer prompts).
context_window = 32768
# Maximum completion tokens per call.
max_tokens = 4096
# 0.0 = deterministic, for code and for reasoning alike.
temperature = 0.0
# Start \`ollama serve\` when the server is not running (the app stops only a server it started).
start_ollama = false
# Seconds before one model call gives up.
timeout_s = 300

[models.overrides]
# Per-stage models: a tag, or {model, context_window, max_tokens}.
# Stages: task_analysis, scope, precision, similarity, routing, plan, execute, chat, summarize, embedding, enrich, rerank.
# Binary decision stages — route to smallest capable model
# scope = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}
# similarity = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}
# precision = {model = "qwen3:0.6b", context_window = 8192, max_tokens = 16}
# Middle tier for routing and summaries
# routing = {model = "qwen3:1.7b", context_window = 8192, max_tokens = 256}

[budget]
# The execute model's context window and what is kept back from retrieval (system prompt, task,
# retry context and completion space). Rules: context_window > 0, 0 <= reserved_tokens < context_window.
context_window = 32768
reserved_tokens = 4096

[retrieval]
# What search does when asked for "auto" (the default of the search box and cra search):
# "auto" = "keyword" (BM25 + definitions + import/co-change neighbours; measured best), or
# "hybrid" (keyword fused with vectors) / "semantic" (vectors only), which need embeddings below.
mode = "auto"
top_k = 20
# Compute vectors in the background after each index (the app only). The built-in model needs no
# server but costs CPU (about 40 ms per chunk on 2 cores), and "auto" search does not use vectors:
# measured with "cra eval", hybrid was worse than keyword on one repository and level on another.
# Switch on for the semantic and hybrid search modes.
embeddings = false

[orchestrator]
max_parts = 10
max_steps_per_part = 15
max_adjustment_rounds = 3
# Implement attempts per step, and retrieval refinements per step after a validation failure with evidence.
max_step_attempts = 3
max_refinement_loops = 2

[chat]
# An answer is stored and shown up to this many KiB; a longer one is cut, with a note saying so.
max_answer_kb = 256
# Model calls one question may make, all steps of its pipeline together: a pipeline that loops
# stops here with an error naming its file and the loop. Re-ranking per_item makes one call per
# candidate each round: raise this when a pipeline uses it.
max_model_calls = 40

# Validation after each solve step, per repository (its id: the repoId that \`cra index <path> --json\`
# prints, also its folder's name under repos/ in the data folder), run in the run's own worktree.
# Read from this file only: a repository's own config.toml cannot set commands. None set: changed
# files are syntax-checked by parsing them.
# [validation.myrepo-1a2b3c4d]
# test = "npm test"
# lint = "npx tsc --noEmit"
# timeout_s = 600

[sandbox]
# Validation commands run model-written code before you review it, so they run in an OS sandbox:
# bubblewrap on Linux (only the run's copy writable, no network, $HOME hidden, a minimal
# environment), sandbox-exec on macOS. Where there is none, they run only when this is true (with
# your rights), or for one run with \`cra solve --allow-unsandboxed-validation\`.
allow_unsandboxed_validation = false
`;
