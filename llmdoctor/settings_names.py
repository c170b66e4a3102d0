"""The names of the settings a diagnosis reads: the engines' environment variables and server
flags. Redaction keeps a value found under one of these names in structured evidence (an
environment listing, a command line); any other name's value is withheld unless it is plainly
not a secret (llmdoctor/redact_struct.py).

Why a table and not the parsers' own lists: the parsers read the dozen settings that decide a
cause, but a report quotes the whole command line, and `--served-model-name` or
`OLLAMA_ORIGINS` are evidence a person reads. Gathered (see bench/settings_names.sh) from:
- Ollama `envconfig/config.go` (github.com/ollama/ollama, HEAD of the mirror) and
  llmdoctor/knowledge/ollama/env.py's VARIABLES (older versions' names);
- llama.cpp `common/arg.cpp` at b3000, b4000, b4747, b9821 (flags and LLAMA_ARG_* names);
- vLLM `vllm/engine/arg_utils.py` and `vllm/envs.py`, 0.4.3 to 0.33.0, plus the fields of
  `vllm/config/*.py` (0.11.0+ derives its flags from them);
- SGLang `sglang/srt/server_args.py` and `environ.py`, 0.1.16 to 0.5.10.post1.
Names a secret is stored under (`--api-key`, `--hf-token`, `VLLM_API_KEY`) are left out:
their values are always withheld.
"""
from __future__ import annotations

from functools import cache

# flags without their leading `--`
_FLAGS = """
abort-on-priority-when-disabled activation active-iterations adaptive-decay adaptive-target
additional-config additional-ports agent aggregate-engine-logging algorithm alias all-logits
all2all-backend allow-auto-truncate allow-deprecated-quantization allow-missing-mm-embeddings
allow-target-only-watermarking allowed-local-media-path allowed-media-domains alpha api-key-file
api-prefix architecture architectures assigned-physical-gpu-ids assume-32-bit-indexing
async-scheduling attention attention-backend attention-config attention-context-parallel-size
attention-reduce-in-fp32 attn-cp-size audio aux-output-config backend backend-per-kind
backend-sampling base-gpu-id batch-size bias-enabled binary-file block-size bs-to-padded-graph-size
bucket-e2e-request-latency bucket-inter-token-latency buffer-steps cache-config cache-dir
cache-dtype cache-hit-alignment-tokens cache-idle-slots cache-list cache-prompt cache-ram
cache-reuse cache-type-k cache-type-k-draft cache-type-v cache-type-v-draft calculate-kv-scales
canvas-length capture-torch-profiler chat-template chat-template-file chat-template-kwargs check
check-interval check-tensors checkpoint-engine-wait-weights-before-ready checkpoint-min-step chunk
chunk-separator chunk-size chunked-prefill-enabled chunked-prefill-size chunks cls cls-separator
code-revision collect-detailed-traces collect-tokens-histogram color communicator compilation-config
compilation-time compile-cache-save-format compile-mm-encoder compile-ranges-endpoints compile-sizes
completion-bash completion-template config config-dtype config-flat config-format config-kwargs
config-scoped configure-logging constrained-json-disable-any-whitespace
constrained-json-whitespace-pattern cont-batching context-file context-length context-shift
context-width control-vector control-vector-layer-range control-vector-scaled conversation convert
convert-type count cp-kv-cache-interleave-size cpu-distributed-timeout-seconds
cpu-kvcache-space-bytes cpu-mask cpu-mask-batch cpu-mask-batch-draft cpu-mask-draft cpu-moe
cpu-moe-draft cpu-offload cpu-offload-gb cpu-offload-params cpu-range cpu-range-batch
cpu-range-batch-draft cpu-range-draft cpu-strict cpu-strict-batch cpu-strict-batch-draft
cpu-strict-draft crash-dump-folder ctx-checkpoints ctx-size ctx-size-draft cuda-graph-bs
cuda-graph-max-bs cuda-graph-sizes cudagraph-capture-sizes cudagraph-copy-inputs
cudagraph-decoder-replay cudagraph-metrics cudagraph-mm-encoder cudagraph-mode
cudagraph-num-of-warmups cudagraph-specialize-lora custom-histogram-buckets custom-ops
custom-sigquit-handler custom-weight-loader data-parallel-address data-parallel-backend
data-parallel-external-lb data-parallel-hybrid-lb data-parallel-index data-parallel-master-ip
data-parallel-master-port data-parallel-multi-port-external-lb data-parallel-rank
data-parallel-rank-local data-parallel-rpc-port data-parallel-size data-parallel-size-local
data-parallel-start-rank dbo-decode-token-threshold dbo-prefill-token-threshold dcp-comm-backend
dcp-kv-cache-interleave-size dcp-q-replicate debug-dump-path debug-tensor-dump-inject
debug-tensor-dump-input-file debug-tensor-dump-layers debug-tensor-dump-output-folder
debug-tensor-dump-prefill-only decode-attention-backend decode-context-parallel-size
decode-log-interval decoder-replay-cudagraph-capture-sizes decoder-replay-trim-threshold
decrypted-config-file decrypted-draft-config-file deduplicate-contexts
deduplicate-contexts-max-history deepep-config deepep-mode default default-factory default-mm-loras
default-priority-value defaults defrag-thold delay-iterations delete-ckpt-after-loading
derived-max-model-len-and-key detailed-trace-annotation device device-buffer-size device-config
device-draft device-ids device-memory-utilization device-type diffusion-add-gumbel-noise
diffusion-alg-temp diffusion-algorithm diffusion-block-length diffusion-cfg-scale diffusion-config
diffusion-eps diffusion-steps diffusion-visual dimensions direct-io disable-additional-properties
disable-any-whitespace disable-async-output-proc disable-by-batch-size disable-cascade-attn
disable-chunked-mm-input disable-chunked-prefix-cache disable-cuda-graph disable-cuda-graph-padding
disable-custom-all-reduce disable-disk-cache disable-eagle-block-drop disable-fallback
disable-fast-image-processor disable-flashinfer disable-flashinfer-autotune
disable-flashinfer-cutlass-moe-fp4-allgather disable-flashinfer-q-quantization
disable-flashinfer-sampling disable-hybrid-kv-cache-manager disable-hybrid-swa-memory
disable-jump-forward disable-log-requests disable-log-stats disable-logprobs
disable-logprobs-during-spec-decoding disable-lookahead-block-hashes disable-mla
disable-mm-preprocessor-cache disable-nan-detection disable-nccl-for-dp-synchronization
disable-outlines-disk-cache disable-overlap-schedule disable-padded-drafter-batch
disable-piecewise-cuda-graph disable-priority-preemption disable-radix-cache
disable-regex-jump-forward disable-shared-experts-fusion disable-sliding-window
disable-tokenizer-batch-decode disabled-custom-ops disaggregation-bootstrap-port
disaggregation-decode-dp disaggregation-decode-enable-offload-kvcache
disaggregation-decode-polling-interval disaggregation-decode-tp disaggregation-ib-device
disaggregation-mode disaggregation-prefill-pp disaggregation-transfer-backend display-prompt
dist-init-addr dist-timeout distributed-executor-backend distributed-timeout-seconds dllm-algorithm
dllm-algorithm-config docker-repo download-dir dp dp-shared-memory dp-size dp-sync-interval draft
draft-lm-head-quantization draft-load-config draft-max draft-min draft-model-config draft-n
draft-n-min draft-p-min draft-p-split draft-parallel-config draft-sample-method
draft-tensor-parallel-size dry-allowed-length dry-base dry-multiplier dry-penalty-last-n
dry-sequence-breaker ds-channel-config-path ds-heavy-channel-num ds-heavy-channel-type
ds-heavy-token-num ds-sparse-decode-threshold dspark-draft-topk dtype dump-dir dump-kv-cache
dynamic-batch-tokenizer-batch-size dynamic-batch-tokenizer-batch-timeout dynamic-shapes-config
dynatemp-exp dynatemp-range eager-host-mirror ec-buffer-device ec-buffer-size ec-connector
ec-connector-extra-config ec-connector-module-path ec-ip ec-manager-config ec-port ec-role
ec-transfer-config effective-attention-block-size efficient-weight-load elastic-ep-backend
elastic-ep-max-dp-size eliminate-noops embd-bge-small-en-default embd-e5-small-en-default
embd-gemma-default embd-gte-small-default embd-normalize embd-output-format embd-separator embedding
embedding-across-dp embeddings enable-adaptive-dispatch-to-encoder enable-adaptive-verification
enable-aiter-allreduce-fusion enable-async-tp enable-attn-fusion enable-attn-tp-input-scattered
enable-batch-sharded-sampling enable-broadcast-mm-inputs-process enable-cache-report
enable-chunked-prefill enable-chunked-processing enable-cudagraph-gc enable-cumem-allocator
enable-custom-logit-processor enable-cutedsl-warmup enable-dbo enable-deepep-moe
enable-deterministic-inference enable-double-sparsity enable-dp-attention enable-dp-lm-head
enable-draft-weights-cpu-backup enable-dynamic-batch-tokenizer enable-dynamic-chunking
enable-elastic-ep enable-elastic-expert-backup enable-ep-moe enable-ep-weight-filter enable-eplb
enable-expert-distribution-metrics enable-expert-parallel enable-fault-tolerance
enable-fi-allreduce-fusion enable-flash-late-interaction enable-flashinfer
enable-flashinfer-allreduce-fusion enable-flashinfer-autotune enable-flashinfer-cutlass-moe
enable-flashinfer-mla enable-flashinfer-mxfp4-moe enable-flashinfer-trtllm-moe enable-flashmla
enable-fp32-lm-head enable-fused-moe-sum-all-reduce enable-fused-qk-norm-rope enable-fusion
enable-hc-sp enable-hierarchical-cache enable-hisparse enable-in-reasoning enable-jit-warmup
enable-kv-cache-events enable-layerwise-nvtx-marker enable-layerwise-nvtx-tracing enable-lmcache
enable-log-requests enable-logging-iteration-details enable-lora enable-lora-bias
enable-lora-overlap-loading enable-mamba-cache-stochastic-rounding
enable-mamba-shared-prefix-checkpoint enable-memory-saver enable-metrics
enable-metrics-for-all-schedulers enable-mfu-metrics enable-migration-batching enable-mixed-chunk
enable-mixed-moe-lora-format enable-mla enable-mm-embeds enable-mm-global-cache
enable-mm-processor-stats enable-moe-shared-loras enable-mscclpp enable-multi-layer-eagle
enable-multimodal enable-multimodal-encoder-data-parallel enable-nan-detection
enable-nccl-comm-suspend enable-nccl-nvls enable-noop enable-nsa-prefill-context-parallel
enable-overlap-schedule enable-p2p-check enable-pdmux enable-permute-local-kv
enable-piecewise-cuda-graph enable-precise-embedding-interpolation enable-prefill-context-parallel
enable-prefill-delayer enable-prefix-caching enable-prefix-mm-cache enable-priority-scheduling
enable-profile-cuda-graph enable-prompt-adapter enable-prompt-embeds enable-qk-norm-rope-fusion
enable-reasoning enable-request-time-stats-logging enable-return-hidden-states
enable-return-routed-experts enable-rocm-segmented-attn-autotune enable-sequence-parallelism
enable-shm-tensor-arena enable-single-batch-overlap enable-sleep-mode enable-ssl-refresh
enable-stochastic-rounding enable-streaming-session enable-symm-mem enable-tokenizer-batch-encode
enable-torch-compile enable-torch-compile-debug-mode enable-torch-symm-mem
enable-tower-connector-lora enable-trace enable-trace-replay enable-triton-kernel-moe
enable-two-batch-overlap enable-weights-cpu-backup enabled-custom-ops encoder-cache-manager-cls
encoder-cache-size encoder-compilation-time encoder-config encoder-cudagraph-max-frames-per-batch
encoder-cudagraph-max-vision-items-per-batch encoder-cudagraph-token-budgets encoder-only
encoder-transfer-backend encoder-urls end endpoint enforce-disable-flashinfer-allreduce-fusion
enforce-eager enforce-piecewise-cuda-graph engine-id engine-info-bootstrap-port
engine-recovery-timeout-sec engine-use-ray engram-config env-name ep ep-dispatch-algorithm
ep-num-redundant-experts ep-size eplb-algorithm eplb-config eplb-log-balancedness
eplb-min-rebalancing-utilization-threshold eplb-rebalance-layers-per-chunk
eplb-rebalance-num-iterations eplb-step-interval eplb-window-size epochs escape evaluate-guards
expert-distribution-recorder-buffer-size expert-distribution-recorder-mode expert-parallel-size
expert-placement-strategy experts-shared-outer-loras export-metrics-to-file
export-metrics-to-file-dir extra-metric-labels factors fail-on-environ-validation
fast-moe-cold-start fastapi-root-path fault-tolerance-config fi-allreduce-fusion-max-size-mb
fi-allreduce-fusion-max-token-num field-name file file-storage-path file-storage-pth
fim-qwen-14b-spec fim-qwen-30b-default fim-qwen-3b-default fim-qwen-7b-default fim-qwen-7b-spec fit
fit-ctx fit-print fit-target flash-attn flash-attn-max-num-splits-for-cuda-graph flash-attn-version
flashinfer-mla-disable-ragged flashinfer-mxfp4-moe-precision flex-attn-block-m flex-attn-block-n
flex-attn-kv-block-size flex-attn-q-block-size fly-entropy-threshold fly-entropy-top-k
fly-window-size formatter forward-hooks fp4-gemm-backend fp8-gemm-backend frequency-penalty
from-chunk full-cuda-graph fully-sharded-loras fuse-act-padding fuse-act-quant fuse-allreduce-rms
fuse-attn-quant fuse-mla-dual-rms-norm fuse-norm-quant fuse-qk-norm-rope-kvcache fuse-rope-kvcache
fuse-rope-kvcache-cat-mla fused-add-rms-norm gc-threshold gc-warning-threshold-secs
gdn-prefill-backend gelu-and-mul-sparse generation-config generation-tokens-buckets
gpt-oss-120b-default gpt-oss-20b-default gpu-id-step gpu-layers gpu-layers-draft
gpu-memory-utilization grammar grammar-backend grammar-file grp-attn-n grp-attn-w grpc-mode
guided-decoding-backend guided-decoding-disable-additional-properties
guided-decoding-disable-any-whitespace guided-decoding-disable-fallback hash-block-size head-dtype
head-size height hellaswag hellaswag-tasks help hf-chat-template-name hf-config hf-config-path
hf-file hf-file-v hf-overrides hf-repo hf-repo-draft hf-repo-v hf-text-config hicache-io-backend
hicache-mem-layout hicache-ratio hicache-size hicache-storage-backend
hicache-storage-backend-extra-config hicache-storage-prefetch-policy hicache-write-policy
hidden-size hisparse-config host hotwords hwm hybrid-kvcache-ratio ignore ignore-eos ignore-frontend
ignore-patterns image image-feature-size image-input-shape image-input-type image-max-tokens
image-min-tokens image-token-id in-file in-prefix in-prefix-bos in-suffix
incremental-streaming-output index-share-for-mtp-iteration indexer-kv-dtype indexer-sparse-logits
indexer-tp-shard-min-rows inductor-compile-config inductor-passes inference-flat inference-kwargs
inference-scoped init-expert-location instance-id interactive interactive-first
interleave-mm-strings io-processor-plugin ir-enable-torch-wrap ir-op-priority is-attention-free
is-deepseek-mla is-embedding is-encoder-decoder is-mm-prefix-lm is-moe-model is-multimodal-model
is-pooling-model is-submodel-config jinja jit-monitor-mode jit-monitor-verbose
json-model-override-args json-schema json-schema-file junk kda-decode-backend kda-prefill-backend
keep keep-mm-feature-on-device kernel-config key kl-divergence kl-divergence-base kt-cpuinfer
kt-max-deferred-experts-per-token kt-method kt-num-gpu-experts kt-threadpool-count kt-weight-path
kv-buffer-device kv-buffer-size kv-cache-dtype kv-cache-dtype-skip-layers kv-cache-layout
kv-cache-max-concurrency kv-cache-memory-bytes kv-cache-metrics kv-cache-metrics-sample
kv-cache-size-tokens kv-connector kv-connector-extra-config kv-connector-module-path
kv-events-config kv-ip kv-load-failure-policy kv-offload kv-offloading-backend kv-offloading-size
kv-parallel-size kv-port kv-rank kv-role kv-sharing-fast-prefill kv-transfer-config kv-unified
language language-model-only language-only layer-names layer-type learning-rate
learning-rate-decay-epochs learning-rate-min length level limit-mm-data-per-request
limit-mm-per-prompt limit-per-prompt linear linear-attn-backend linear-attn-decode-backend
linear-attn-prefill-backend linear-backend linear-backend-per-quant list-devices load-balance-method
load-config load-format local-cache-dir log-balancedness log-balancedness-interval log-colors
log-config-file log-disable log-file log-level log-level-http log-prefix log-prompts-dir
log-requests log-requests-format log-requests-level log-requests-target log-stats-interval
log-timestamps log-verbose log-verbosity logdir logging-config logit-bias logit-mean logit-sigma
logits-output-dir logits-processor-pattern logits-processors logprobs-mode long-lora-scaling-factors
long-prefill-token-threshold long-prefill-token-threshold-adaptive lookup-cache-dynamic
lookup-cache-static lora lora-backend lora-config lora-dtype lora-eviction-policy
lora-extra-vocab-size lora-init-without-apply lora-paths lora-scaled lora-target-modules
lora-vocab-padding-size main-gpu mamba-backend mamba-block-size mamba-cache-dtype mamba-cache-mode
mamba-cache-philox-rounds mamba-config mamba-full-memory-ratio mamba-page-size-padded
mamba-scheduler-strategy mamba-ssm-cache-dtype mamba-ssm-dtype mamba-ssu-algorithm
mamba-track-interval manager-config master-addr master-port max-audio-clip-s max-bytes
max-capture-size max-context-len-to-capture max-cpu-loras max-cudagraph-capture-size
max-denoising-steps max-embed-len max-iterations max-loaded-loras max-log-len max-logprobs
max-long-partial-prefills max-lora-chunk-size max-lora-cls-labels max-lora-rank max-loras
max-loras-per-batch max-mamba-cache-size max-micro-batch-size max-model-len max-num-active-seqs
max-num-batched-tokens max-num-encoder-input-tokens max-num-partial-prefills max-num-queued-reqs
max-num-queued-tokens max-num-reqs max-num-scheduled-tokens max-num-seqs
max-parallel-loading-workers max-prefill-num-token max-prefill-tokens max-prompt-adapter-token
max-prompt-adapters max-queue-size max-queued-requests max-running-requests max-seq-len-to-capture
max-total-tokens media-io-kwargs media-path mem-fraction-static method metrics
min-energy-split-window-size min-p minimax-m3-indexer-cp minimax-m3-msa-decode-backend mirostat
mirostat-ent mirostat-lr mla-prefill-backend mlock mm-attention-backend mm-device-do-normalize
mm-enable-dp-encoder mm-encoder-attn-backend mm-encoder-attn-dtype mm-encoder-fp8-scale-path
mm-encoder-fp8-scale-save-margin mm-encoder-fp8-scale-save-path mm-encoder-only
mm-encoder-output-widths mm-encoder-tp-mode mm-hasher-algorithm mm-ipc-gpu-memory-gb
mm-process-config mm-processor-cache-gb mm-processor-cache-type mm-processor-device
mm-processor-kwargs mm-shm-cache-max-object-size-mb mm-tensor-ipc mmap mmproj mmproj-auto
mmproj-offload mmproj-url mode model model-arch-config model-checksum model-class-overrides
model-config model-draft model-id model-impl model-loader-extra-config model-path model-type
model-url model-vocoder model-weights modelexpress-config modelopt-checkpoint-restore-path
modelopt-checkpoint-save-path modelopt-export-path modelopt-quant models-autoload models-dir
models-max models-preset moe moe-a2a-backend moe-backend moe-data-parallel-size moe-dense-tp-size
moe-dp-size moe-runner-backend monokernel mooncake-ib-device mtmd-batch-max-tokens mtp
multi-item-scoring-delimiter multi-step-stream-outputs multiline-input multimodal-config
multiple-choice multiple-choice-tasks n-cpu-moe n-cpu-moe-draft n-gpu-layers n-gpu-layers-draft
n-predict n-share-experts-fusion name named-field names nccl-init-addr nccl-port negative-file
new-name-or-names ngram-prompt-lookup-max ngram-prompt-lookup-min nnodes no-agent
no-cache-idle-slots no-cache-prompt no-cont-batching no-context-shift no-conversation no-direct-io
no-display-prompt no-enable-chunked-prefill no-enable-prefix-caching no-escape no-host no-jinja
no-kv-offload no-kv-unified no-log-prefix no-log-timestamps no-mmap no-mmproj no-mmproj-auto
no-mmproj-offload no-models-autoload no-op-offload no-perf no-ppl no-prefill-assistant no-repack
no-show-timings no-skip-chat-parsing no-slots no-spec-draft-backend-sampling no-ui no-ui-mcp-proxy
no-warmup no-webui no-webui-mcp-proxy node-rank normalize nsa-decode-backend nsa-prefill-backend
nsa-prefill-cp-mode num-continuous-decode-steps num-cpu-blocks num-experts num-experts-per-token
num-frames num-gpu-blocks num-gpu-blocks-override num-lookahead-slots num-redundant-experts
num-reserved-decode-tokens num-scheduler-steps num-speculative-tokens
num-speculative-tokens-per-batch-size numa numa-bind numa-bind-cpus numa-bind-nodes numa-node object
observability-config offline offload-backend offload-config offload-group-size offload-mode
offload-num-in-group offload-params offload-prefetch-step old-name op-offload optimization-level
optimizer otlp-traces-endpoint out output output-file output-format output-frequency
overlap-chunk-second override-attention-dtype override-generation-config override-kv
override-neuron-config override-pooler-config override-tensor override-tensor-draft overrides
p-split page-size parallel parallel-config parallel-drafting parse-special pass-config path pattern
pca-batch pca-iter pdlb-url pdmux-config-path penalize-nl per-layer-overrides
per-request-spec-decode-metrics perf performance-mode perplexity piecewise-cuda-graph-compiler
piecewise-cuda-graph-max-tokens piecewise-cuda-graph-tokens pipeline-parallel-size placement-group
policy poll poll-batch poll-batch-draft poll-draft pooler-config pooling pooling-type port pos
positive-file pp-async-batch-depth pp-max-micro-batch-size pp-size ppl ppl-output-type ppl-stride
pre-warm-nccl predict preemption-mode preferred-sampling-params prefetch prefill-assistant
prefill-attention-backend prefill-context-parallel-size prefill-cp-mode
prefill-delayer-forward-passes-buckets prefill-delayer-max-delay-passes
prefill-delayer-token-usage-low-watermark prefill-delayer-wait-seconds-buckets prefill-max-requests
prefill-round-robin-balance prefill-schedule-interval prefix-cache-retention-interval
prefix-caching-hash-algo prefix-match-unit presence-penalty prf print-token-count prio prio-batch
prio-batch-draft prio-draft priority-scheduling-preemption-threshold process-output
processed-overrides profiler profiler-config prompt prompt-cache prompt-cache-all prompt-cache-ro
prompt-lookup-max prompt-lookup-min prompt-tokens-buckets props proton-backend proton-context
proton-data proton-graph-attribution proton-hook proton-mode proton-output-format
proton-profiler-dir pt-load-map-location publisher pylogging-config-file qlora-adapter-name-or-path
quant-config quantization quantization-config quantization-param-path quantize-and-serve
radix-eviction-policy random-seed rank ray-runtime-env ray-workers-use-nsight reasoning
reasoning-budget reasoning-budget-message reasoning-config reasoning-end-str reasoning-format
reasoning-parser reasoning-parser-plugin reasoning-start-str rejection-sample-method
remote-instance-weight-loader-backend remote-instance-weight-loader-seed-instance-ip
remote-instance-weight-loader-seed-instance-service-port
remote-instance-weight-loader-send-weights-group-ports
remote-instance-weight-loader-start-seed-via-transfer-engine removal-version renderer-num-workers
repack repeat-last-n repeat-penalty replay-endpoint replayssm-buffer-len request-prompt rerank
reranking return-sampling-mask returned-token-ids reuse-port reverse-prompt revision
rl-on-policy-target rl-quant-profile rms-norm rope-freq-base rope-freq-scale
rope-kvcache-fusion-max-token-num rope-scale rope-scaling rope-theta rpc rswa-window runner
runner-type safetensors-load-strategy safetensors-prefetch-block-size
safetensors-prefetch-num-threads sample-rate sampler-seq samplers sampling-backend sampling-defaults
sampling-seq save-all-logits save-frequency save-logits schedule-conservativeness schedule-heuristic
schedule-low-priority-values-first schedule-policy scheduler-cls scheduler-config
scheduler-delay-factor scheduler-recv-interval scheduler-reserve-full-isl scheduling-policy
sd-worker-cls seed send-delta-data seq-pooling-type sequences served-model-name
show-hidden-metrics-for-version show-statistics show-time-cost show-timings shutdown-timeout
simple-cpu-offload-num-blocks simple-io single-turn skip-chat-parsing skip-mm-profiling
skip-page-size-padded skip-server-warmup skip-tokenizer-init sleep-idle-seconds sleep-mode-backend
sleep-mode-offload-cudagraph sleep-on-idle sleep-preserve-parameter-names sliding-window
slot-prompt-similarity slot-save-path slots sm-group-num soft-watchdog-timeout softmax
sparse-indexer-topk-backend sparse-mla-force-mqa sparse-mla-prefill-workspace-factor
spec-decoding-acceptance-method spec-default spec-draft-backend-sampling spec-draft-cpu-mask
spec-draft-cpu-mask-batch spec-draft-cpu-moe spec-draft-cpu-range spec-draft-cpu-range-batch
spec-draft-cpu-strict spec-draft-cpu-strict-batch spec-draft-device spec-draft-hf spec-draft-model
spec-draft-n-cpu-moe spec-draft-n-max spec-draft-n-min spec-draft-ncmoe spec-draft-ngl
spec-draft-override-tensor spec-draft-p-min spec-draft-p-split spec-draft-poll spec-draft-poll-batch
spec-draft-prio spec-draft-prio-batch spec-draft-threads spec-draft-threads-batch spec-draft-type-k
spec-draft-type-v spec-method spec-model spec-ngram-map-k-min-hits spec-ngram-map-k-size-m
spec-ngram-map-k-size-n spec-ngram-map-k4v-min-hits spec-ngram-map-k4v-size-m
spec-ngram-map-k4v-size-n spec-ngram-min-hits spec-ngram-mod-n-match spec-ngram-mod-n-max
spec-ngram-mod-n-min spec-ngram-simple-min-hits spec-ngram-simple-size-m spec-ngram-simple-size-n
spec-ngram-size-m spec-ngram-size-n spec-target-max-model-len spec-tokens spec-type special
specialize-active-lora speculative-accept-threshold-acc speculative-accept-threshold-single
speculative-algorithm speculative-attention-mode speculative-config
speculative-disable-by-batch-size speculative-disable-mqa-scorer speculative-draft-attention-backend
speculative-draft-load-format speculative-draft-model speculative-draft-model-path
speculative-draft-model-quantization speculative-draft-model-revision
speculative-draft-tensor-parallel-size speculative-eagle-topk speculative-max-model-len
speculative-model speculative-model-quantization speculative-moe-a2a-backend
speculative-moe-runner-backend speculative-ngram-capacity speculative-ngram-match-type
speculative-ngram-max-bfs-breadth speculative-ngram-max-trie-depth speculative-ngram-min-bfs-breadth
speculative-num-draft-tokens speculative-num-steps speculative-token-map speculative-token-tree
split-mode splitting-ops spm-infill sse-ping-interval ssl-ca-certs ssl-cert-file ssl-certfile
ssl-key-file ssl-keyfile ssu-algorithm start static-all-moe-layers static-forward-context
step-interval step-tag-id stochastic-rounding-philox-rounds stream-interval stream-output
stream-response-default-include-usage structured-outputs-config stt-config
suffix-decoding-max-cached-requests suffix-decoding-max-spec-factor suffix-decoding-max-tree-depth
suffix-decoding-min-token-prob swa-bounded-replay swa-checkpoints swa-full swa-full-tokens-ratio
swap-space synthetic-acceptance-length synthetic-acceptance-rates system-prompt system-prompt-file
tags target-model-config target-modules target-parallel-config targets task task-type
tbo-token-distribution-threshold temp temperature tensor-filter tensor-parallel-size tensor-split
text-model-type threads threads-batch threads-batch-draft threads-draft threads-http timeout to-bool
to-int to-language tok-pooling-type tokenizer tokenizer-config
tokenizer-metrics-allowed-custom-labels tokenizer-metrics-custom-labels-header tokenizer-mode
tokenizer-path tokenizer-pool-extra-config tokenizer-pool-size tokenizer-pool-type
tokenizer-revision tokenizer-worker-num tokenspeed-mla-min-split-kv tool-call-parser tool-server
tools top-k top-n-sigma top-nsigma top-p topic torch-compile-max-bs torch-profiler-activities
torch-profiler-dir torch-profiler-dump-cuda-time-total torch-profiler-record-shapes
torch-profiler-use-gzip torch-profiler-with-flops torch-profiler-with-memory
torch-profiler-with-stack torchao-config total-num-attention-heads total-num-hidden-layers
total-num-kv-heads tp tp-size tq-max-kv-splits-for-cuda-graph traced-files
triton-attention-num-kv-splits triton-attention-reduce-in-fp32 triton-attention-split-tile-size
trtllm-ragged-backend trust-remote-code tts-oute-default tts-speaker-file tts-use-guide-tokens type
typical typical-acceptance-sampler-posterior-alpha typical-acceptance-sampler-posterior-threshold
typical-p ubatch-size ui ui-config ui-config-file ui-mcp-proxy usage use-activation use-async
use-cudagraph use-fp64-gumbel use-heterogeneous-vocab use-inductor use-inductor-graph-partition
use-kda-recoverssm use-local-argmax-reduction use-non-causal use-prefill-query-quantization use-ray
use-replayssm use-thp use-tqdm-on-load use-trtllm-attention use-v2-block-manager
user-specified-block-size uva uvicorn-access-log-exclude-prefixes val-split verbose verbose-prompt
verbosity version video video-pruning-method video-pruning-rate vision-gemma-12b-default
vision-gemma-4b-default vllm-config vocab-size wait-iterations warmup warmup-iterations warmups warn
watchdog-config watchdog-timeout watermark watermark-config webui webui-config webui-config-file
webui-mcp-proxy weight weight-decay weight-loader-disable-mmap weight-transfer-config weight-version
width window-size winogrande winogrande-tasks word-embeddings-untied-by-checkpoint worker-cls
worker-extension-cls worker-use-ray world-size xpress-topc xtc-probability xtc-threshold
yarn-attn-factor yarn-beta-fast yarn-beta-slow yarn-ext-factor yarn-orig-ctx
"""

_ENV = """
CUDA_VISIBLE_DEVICES GGML_VK_VISIBLE_DEVICES GPU_DEVICE_ORDINAL HIP_VISIBLE_DEVICES
HSA_OVERRIDE_GFX_VERSION LLAMA_ARG_AGENT LLAMA_ARG_ALIAS LLAMA_ARG_API_KEY_FILE LLAMA_ARG_API_PREFIX
LLAMA_ARG_BACKEND_SAMPLING LLAMA_ARG_BATCH LLAMA_ARG_CACHE_IDLE_SLOTS LLAMA_ARG_CACHE_PROMPT
LLAMA_ARG_CACHE_RAM LLAMA_ARG_CACHE_REUSE LLAMA_ARG_CACHE_TYPE_K LLAMA_ARG_CACHE_TYPE_V
LLAMA_ARG_CHAT_TEMPLATE LLAMA_ARG_CHAT_TEMPLATE_FILE LLAMA_ARG_CHAT_TEMPLATE_KWARGS
LLAMA_ARG_CHECKPOINT_MIN_SPACING_NT LLAMA_ARG_CONTEXT_SHIFT LLAMA_ARG_CONT_BATCHING
LLAMA_ARG_CPU_MOE LLAMA_ARG_CTX_CHECKPOINTS LLAMA_ARG_CTX_SIZE LLAMA_ARG_DEFRAG_THOLD
LLAMA_ARG_DEVICE LLAMA_ARG_DIO LLAMA_ARG_DOCKER_REPO LLAMA_ARG_DRAFT_MAX LLAMA_ARG_DRAFT_MIN
LLAMA_ARG_EMBEDDINGS LLAMA_ARG_ENDPOINT_METRICS LLAMA_ARG_ENDPOINT_PROPS LLAMA_ARG_ENDPOINT_SLOTS
LLAMA_ARG_FIT LLAMA_ARG_FIT_CTX LLAMA_ARG_FIT_ESTIMATE LLAMA_ARG_FIT_TARGET LLAMA_ARG_FLASH_ATTN
LLAMA_ARG_GRP_ATTN_N LLAMA_ARG_GRP_ATTN_W LLAMA_ARG_HF_FILE LLAMA_ARG_HF_FILE_V LLAMA_ARG_HF_REPO
LLAMA_ARG_HF_REPO_V LLAMA_ARG_HOST LLAMA_ARG_IMAGE_MAX_TOKENS LLAMA_ARG_IMAGE_MIN_TOKENS
LLAMA_ARG_JINJA LLAMA_ARG_KV_OFFLOAD LLAMA_ARG_KV_UNIFIED LLAMA_ARG_LOG_COLORS LLAMA_ARG_LOG_FILE
LLAMA_ARG_LOG_PREFIX LLAMA_ARG_LOG_TIMESTAMPS LLAMA_ARG_LOG_VERBOSITY LLAMA_ARG_MAIN_GPU
LLAMA_ARG_MLOCK LLAMA_ARG_MMAP LLAMA_ARG_MMPROJ LLAMA_ARG_MMPROJ_AUTO LLAMA_ARG_MMPROJ_OFFLOAD
LLAMA_ARG_MMPROJ_URL LLAMA_ARG_MODEL LLAMA_ARG_MODELS_AUTOLOAD LLAMA_ARG_MODELS_DIR
LLAMA_ARG_MODELS_MAX LLAMA_ARG_MODELS_PRESET LLAMA_ARG_MODEL_URL LLAMA_ARG_MTMD_BATCH_MAX_TOKENS
LLAMA_ARG_NO_ LLAMA_ARG_NO_HOST LLAMA_ARG_NUMA LLAMA_ARG_N_CPU_MOE LLAMA_ARG_N_GPU_LAYERS
LLAMA_ARG_N_GPU_LAYERS_DRAFT LLAMA_ARG_N_PARALLEL LLAMA_ARG_N_PREDICT LLAMA_ARG_OFFLINE
LLAMA_ARG_OVERRIDE_TENSOR LLAMA_ARG_PERF LLAMA_ARG_POOLING LLAMA_ARG_PORT
LLAMA_ARG_PREFILL_ASSISTANT LLAMA_ARG_REASONING LLAMA_ARG_REPACK LLAMA_ARG_RERANKING
LLAMA_ARG_REUSE_PORT LLAMA_ARG_ROPE_FREQ_BASE LLAMA_ARG_ROPE_FREQ_SCALE LLAMA_ARG_ROPE_SCALE
LLAMA_ARG_ROPE_SCALING_TYPE LLAMA_ARG_RPC LLAMA_ARG_SHOW_TIMINGS LLAMA_ARG_SKIP_CHAT_PARSING
LLAMA_ARG_SPEC_DRAFT_BACKEND_SAMPLING LLAMA_ARG_SPEC_DRAFT_CACHE_TYPE_K
LLAMA_ARG_SPEC_DRAFT_CACHE_TYPE_V LLAMA_ARG_SPEC_DRAFT_CPU_MOE LLAMA_ARG_SPEC_DRAFT_HF_REPO
LLAMA_ARG_SPEC_DRAFT_MODEL LLAMA_ARG_SPEC_DRAFT_N_CPU_MOE LLAMA_ARG_SPEC_DRAFT_N_MAX
LLAMA_ARG_SPEC_DRAFT_N_MIN LLAMA_ARG_SPEC_DRAFT_P_MIN LLAMA_ARG_SPEC_DRAFT_P_SPLIT
LLAMA_ARG_SPEC_TYPE LLAMA_ARG_SPLIT_MODE LLAMA_ARG_SSE_PING_INTERVAL LLAMA_ARG_SSL_CERT_FILE
LLAMA_ARG_SSL_KEY_FILE LLAMA_ARG_STATIC_PATH LLAMA_ARG_SWA_FULL LLAMA_ARG_TAGS
LLAMA_ARG_TENSOR_SPLIT LLAMA_ARG_THINK LLAMA_ARG_THINK_BUDGET LLAMA_ARG_THINK_BUDGET_MESSAGE
LLAMA_ARG_THREADS LLAMA_ARG_THREADS_HTTP LLAMA_ARG_TIMEOUT LLAMA_ARG_TOOLS LLAMA_ARG_TOP_K
LLAMA_ARG_UBATCH LLAMA_ARG_UI LLAMA_ARG_UI_CONFIG LLAMA_ARG_UI_CONFIG_FILE LLAMA_ARG_UI_MCP_PROXY
LLAMA_ARG_YARN_ATTN_FACTOR LLAMA_ARG_YARN_BETA_FAST LLAMA_ARG_YARN_BETA_SLOW
LLAMA_ARG_YARN_EXT_FACTOR LLAMA_ARG_YARN_ORIG_CTX OLLAMA_CONTEXT_LENGTH OLLAMA_DEBUG
OLLAMA_DEBUG_LOG_REQUESTS OLLAMA_EDITOR OLLAMA_FLASH_ATTENTION OLLAMA_GO_TEMPLATE
OLLAMA_GPU_OVERHEAD OLLAMA_HOST OLLAMA_IGPU_ENABLE OLLAMA_INTEL_GPU OLLAMA_KEEP_ALIVE
OLLAMA_KV_CACHE_TYPE OLLAMA_LLM_LIBRARY OLLAMA_LOAD_TIMEOUT OLLAMA_MAX_LOADED_MODELS
OLLAMA_MAX_QUEUE OLLAMA_MAX_TRANSFER_STREAMS OLLAMA_MAX_VRAM OLLAMA_MODELS OLLAMA_MULTIUSER_CACHE
OLLAMA_NEW_ENGINE OLLAMA_NOHISTORY OLLAMA_NOPRUNE OLLAMA_NO_CLOUD OLLAMA_NUM_PARALLEL OLLAMA_ORIGINS
OLLAMA_REMOTES OLLAMA_RUNNERS_DIR OLLAMA_SCHED_SPREAD OLLAMA_TMPDIR OLLAMA_VULKAN
ROCR_VISIBLE_DEVICES SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN SGLANG_AUTO_NUMA_BIND
SGLANG_BACKUP_PORT_BASE SGLANG_BLACKWELL_OVERLAP_SHARED_EXPERTS_OUTSIDE_SBO
SGLANG_CHUNKED_PREFIX_CACHE_THRESHOLD SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION SGLANG_CPU_QUANTIZATION
SGLANG_CUDA_COREDUMP SGLANG_CUDA_COREDUMP_DIR SGLANG_CUTEDSL_MOE_NVFP4_DISPATCH SGLANG_CUTLASS_MOE
SGLANG_DATA_PARALLEL_BUDGET_INTERVAL SGLANG_DEBUG_MEMORY_POOL SGLANG_DEEPEP_BF16_DISPATCH
SGLANG_DEEPEP_LL_COMBINE_SEND_NUM_SMS SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK
SGLANG_DETECT_SLOW_RANK SGLANG_DG_CACHE_DIR SGLANG_DG_USE_NVRTC SGLANG_DISABLED_MODEL_ARCHS
SGLANG_DISABLE_CONSECUTIVE_PREFILL_OVERLAP SGLANG_DISABLE_OUTLINES_DISK_CACHE
SGLANG_DISABLE_REQUEST_LOGGING SGLANG_DISABLE_TP_MEMORY_INBALANCE_CHECK
SGLANG_DISAGGREGATION_ALL_CP_RANKS_TRANSFER SGLANG_DISAGGREGATION_BOOTSTRAP_ENTRY_CLEANUP_INTERVAL
SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT SGLANG_DISAGGREGATION_HEARTBEAT_INTERVAL
SGLANG_DISAGGREGATION_HEARTBEAT_MAX_FAILURE SGLANG_DISAGGREGATION_NIXL_BACKEND
SGLANG_DISAGGREGATION_NUM_PRE_ALLOCATE_REQS SGLANG_DISAGGREGATION_QUEUE_SIZE
SGLANG_DISAGGREGATION_THREAD_POOL_SIZE SGLANG_DISAGGREGATION_WAITING_TIMEOUT
SGLANG_DISAGG_STAGING_BUFFER SGLANG_DISAGG_STAGING_BUFFER_SIZE_MB SGLANG_DISAGG_STAGING_POOL_SIZE_MB
SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE SGLANG_DYNAMIC_CHUNKING_SMOOTH_FACTOR
SGLANG_EMBEDDINGS_SPARSE_HEAD SGLANG_EMPTY_CACHE_INTERVAL SGLANG_ENABLE_COLOCATED_BATCH_GEN
SGLANG_ENABLE_DETERMINISTIC_INFERENCE SGLANG_ENABLE_EPLB_BALANCEDNESS_METRIC
SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION SGLANG_ENABLE_JIT_DEEPGEMM
SGLANG_ENABLE_LOGITS_PROCESSER_CHUNK SGLANG_ENABLE_METRICS_DEVICE_TIMER
SGLANG_ENABLE_METRICS_DP_ATTENTION SGLANG_ENABLE_OVERLAP_PLAN_STREAM SGLANG_ENABLE_SPEC_V2
SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_BUSY SGLANG_ENABLE_STRICT_MEM_CHECK_DURING_IDLE
SGLANG_ENABLE_TORCH_COMPILE SGLANG_ENABLE_TORCH_INFERENCE_MODE
SGLANG_ENABLE_TP_MEMORY_INBALANCE_CHECK SGLANG_ENCODER_DISPATCH_MIN_ITEMS
SGLANG_ENCODER_GRPC_TIMEOUT_SECS SGLANG_ENCODER_MM_RECEIVER_MODE SGLANG_ENCODER_RECV_TIMEOUT
SGLANG_ENCODER_SEND_TIMEOUT SGLANG_EPLB_HEATMAP_COLLECTION_INTERVAL
SGLANG_EXPERIMENTAL_CPP_RADIX_TREE SGLANG_EXPERT_DISTRIBUTION_RECORDER_DIR
SGLANG_EXPERT_LOCATION_UPDATER_CANARY SGLANG_EXPERT_LOCATION_UPDATER_LOG_INPUT
SGLANG_EXPERT_LOCATION_UPDATER_LOG_METRICS SGLANG_EXTERNAL_MM_MODEL_ARCH
SGLANG_EXTERNAL_MM_PROCESSOR_PACKAGE SGLANG_EXTERNAL_MODEL_PACKAGE
SGLANG_FLASHINFER_DECODE_SPLIT_TILE_SIZE SGLANG_FLASHINFER_FORCE_POSIX_FD_TRANSPORT
SGLANG_FLASHINFER_PREFILL_SPLIT_TILE_SIZE SGLANG_FLASHINFER_WORKSPACE_SIZE SGLANG_FORCE_FP8_MARLIN
SGLANG_FORCE_SHUTDOWN SGLANG_FORWARD_TIMEOUT_MS SGLANG_FORWARD_UNKNOWN_TOOLS
SGLANG_FP8_IGNORED_LAYERS SGLANG_GC_LOG SGLANG_GRAMMAR_MAX_POLL_ITERATIONS
SGLANG_GRAMMAR_POLL_INTERVAL SGLANG_HICACHE_DECODE_OFFLOAD_STRIDE
SGLANG_HICACHE_FILE_BACKEND_STORAGE_DIR SGLANG_HICACHE_HF3FS_CONFIG_PATH
SGLANG_HICACHE_MOONCAKE_CONFIG_PATH SGLANG_HICACHE_MOONCAKE_REUSE_TE
SGLANG_HICACHE_NIXL_BACKEND_STORAGE_DIR SGLANG_IMAGE_MAX_PIXELS SGLANG_INIT_NEW_TOKEN_RATIO
SGLANG_INT4_WEIGHT SGLANG_IN_DEEPGEMM_PRECOMPILE_STAGE SGLANG_IS_FIRST_RANK_ON_NODE
SGLANG_IS_FLASHINFER_AVAILABLE SGLANG_IS_IN_CI SGLANG_IS_IN_CI_AMD
SGLANG_JIT_DEEPGEMM_COMPILE_WORKERS SGLANG_JIT_DEEPGEMM_FAST_WARMUP SGLANG_JIT_DEEPGEMM_PRECOMPILE
SGLANG_LOGITS_PROCESSER_CHUNK_SIZE SGLANG_LOG_EXPERT_LOCATION_METADATA SGLANG_LOG_FORWARD_ITERS
SGLANG_LOG_GC SGLANG_LOG_MS SGLANG_LOG_REQUEST_EXCEEDED_MS SGLANG_LOG_REQUEST_HEADERS
SGLANG_LOG_SCHEDULER_STATUS_INTERVAL SGLANG_LOG_SCHEDULER_STATUS_TARGET SGLANG_MAMBA_CONV_DTYPE
SGLANG_MAMBA_SSM_DTYPE SGLANG_MEMORY_SAVER_CUDA_GRAPH SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR
SGLANG_MM_BUFFER_SIZE_MB SGLANG_MM_FEATURE_CACHE_MB SGLANG_MM_ITEM_MEM_POOL_RECYCLE_INTERVAL_SEC
SGLANG_MM_PRECOMPUTE_HASH SGLANG_MM_SKIP_COMPUTE_HASH SGLANG_MOE_NVFP4_DISPATCH SGLANG_MOE_PADDING
SGLANG_MOONCAKE_CUSTOM_MEM_POOL SGLANG_MOONCAKE_SEND_AUX_TCP SGLANG_NATIVE_MOVE_KV_CACHE
SGLANG_NCCL_ALL_GATHER_IN_OVERLAP_SCHEDULER_SYNC_BATCH SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
SGLANG_NGRAM_FORCE_GREEDY_VERIFY SGLANG_NIXL_EP_BF16_DISPATCH
SGLANG_NIXL_EP_NUM_MAX_DISPATCH_TOKENS_PER_RANK SGLANG_NPU_DISABLE_ACL_FORMAT_WEIGHT
SGLANG_NPU_FORWARD_NATIVE_GELUTANH SGLANG_NPU_FORWARD_NATIVE_GEMMA_RMS_NORM
SGLANG_NPU_FUSED_MOE_MODE SGLANG_NPU_USE_MLAPO SGLANG_NPU_USE_MULTI_STREAM
SGLANG_NSA_ENABLE_MTP_PRECOMPUTE_METADATA SGLANG_NSA_FUSE_TOPK
SGLANG_NSA_PREFILL_DENSE_ATTN_KV_LEN_THRESHOLD SGLANG_NUMA_BIND_V2
SGLANG_NVFP4_CKPT_FP8_GEMM_IN_ATTN SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE
SGLANG_ONE_VISIBLE_DEVICE_PER_PROCESS SGLANG_OTLP_EXPORTER_MAX_EXPORT_BATCH_SIZE
SGLANG_OTLP_EXPORTER_SCHEDULE_DELAY_MILLIS SGLANG_PATCH_TOKENIZER
SGLANG_PER_TOKEN_GROUP_QUANT_8BIT_V2 SGLANG_PREFILL_DELAYER_MAX_DELAY_PASSES
SGLANG_PREFILL_DELAYER_TOKEN_USAGE_LOW_WATERMARK SGLANG_PROFILE_RECORD_SHAPES SGLANG_PROFILE_V2
SGLANG_PROFILE_WITH_STACK SGLANG_QUANT_ALLOW_DOWNCASTING SGLANG_QUEUED_TIMEOUT_MS
SGLANG_RECORD_STEP_TIME SGLANG_REQUEST_STATE_WAIT_TIMEOUT SGLANG_REQ_RUNNING_TIMEOUT
SGLANG_REQ_WAITING_TIMEOUT SGLANG_RESIZE_RESAMPLE SGLANG_RETRACT_DECODE_STEPS
SGLANG_RETURN_ORIGINAL_LOGPROB SGLANG_ROCM_DISABLE_LINEARQUANT SGLANG_ROCM_FUSED_DECODE_MLA
SGLANG_ROPE_CACHE_ALIGN SGLANG_ROPE_CACHE_SAFETY_MARGIN SGLANG_SCHEDULER_DECREASE_PREFILL_IDLE
SGLANG_SCHEDULER_MAX_RECV_PER_POLL SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DECODE
SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DEFAULT SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_NONE
SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_TARGET_VERIFY SGLANG_SCHEDULER_SKIP_ALL_GATHER
SGLANG_SET_CPU_AFFINITY SGLANG_SIMULATE_ACC_LEN SGLANG_SIMULATE_ACC_METHOD
SGLANG_SKIP_SGL_KERNEL_VERSION_CHECK SGLANG_SKIP_SOFTMAX_DECODE_THRESHOLD_SCALE_FACTOR
SGLANG_SKIP_SOFTMAX_PREFILL_THRESHOLD_SCALE_FACTOR SGLANG_SORT_WEIGHT_FILES
SGLANG_SPEC_ENABLE_STRICT_FILTER_CHECK SGLANG_SPEC_EXPANSION_SAFETY_FACTOR SGLANG_SPEC_NAN_DETECTION
SGLANG_SPEC_OOB_DETECTION SGLANG_STAGING_USE_TORCH SGLANG_SYMM_MEM_PREALLOC_GB_SIZE
SGLANG_SYNC_TOKEN_IDS_ACROSS_TP SGLANG_TBO_DEBUG SGLANG_TCP_STORE_PORT
SGLANG_TEST_CRASH_AFTER_STREAM_OUTPUTS SGLANG_TEST_MAX_RETRY SGLANG_TEST_PD_DISAGG_BACKEND
SGLANG_TEST_PD_DISAGG_DEVICES SGLANG_TEST_REQUEST_TIME_STATS SGLANG_TEST_RETRACT
SGLANG_TEST_RETRACT_INTERVAL SGLANG_TEST_RETRACT_NO_PREFILL_BS SGLANG_TEST_STUCK_DETOKENIZER
SGLANG_TEST_STUCK_DP_CONTROLLER SGLANG_TEST_STUCK_SCHEDULER_INIT SGLANG_TEST_STUCK_TOKENIZER
SGLANG_TIMEOUT_KEEP_ALIVE SGLANG_TOOL_STRICT_LEVEL SGLANG_TORCH_PROFILER_DIR
SGLANG_TRITON_DECODE_ATTN_STATIC_KV_SPLITS SGLANG_TRITON_DECODE_SPLIT_TILE_SIZE
SGLANG_TRITON_PREFILL_TRUNCATION_ALIGN_SIZE SGLANG_USE_1STAGE_ALLREDUCE SGLANG_USE_AG_AFTER_QLORA
SGLANG_USE_AITER SGLANG_USE_AITER_FP8_PER_TOKEN SGLANG_USE_CUDA_IPC_TRANSPORT
SGLANG_USE_CUSTOM_TRITON_KERNEL_CACHE SGLANG_USE_DEEPGEMM_BMM SGLANG_USE_DYNAMIC_MXFP4_LINEAR
SGLANG_USE_FUSED_METADATA_COPY SGLANG_USE_IPC_POOL_HANDLE_CACHE SGLANG_USE_MESSAGE_QUEUE_BROADCASTER
SGLANG_USE_MLX SGLANG_USE_MODELSCOPE SGLANG_VIT_ENABLE_CUDA_GRAPH SGLANG_VLM_CACHE_SIZE_MB
SGLANG_WARMUP_TIMEOUT VLLM_ADAPTIVE_VERIFICATION_PROFILE_CONTEXT_LEN VLLM_ALL2ALL_BACKEND
VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE VLLM_ALLOW_ENGINE_USE_RAY
VLLM_ALLOW_INSECURE_SERIALIZATION VLLM_ALLOW_LONG_MAX_MODEL_LEN VLLM_ALLOW_RUNTIME_LORA_UPDATING
VLLM_ALLREDUCE_USE_FLASHINFER VLLM_ALLREDUCE_USE_FLASHINFER_PCIE_IPC VLLM_ALLREDUCE_USE_SYMM_MEM
VLLM_ASSETS_CACHE VLLM_ASSETS_CACHE_MODEL_CLEAN VLLM_ATTENTION_BACKEND VLLM_AUDIO_FETCH_TIMEOUT
VLLM_B12X_MOE_FP4_FORCE_A16 VLLM_BATCH_INVARIANT VLLM_BEAM_ALWAYS_CONSTRAIN_OUTPUT
VLLM_BLOCKSCALE_FP8_GEMM_FLASHINFER VLLM_BUILD_COMMIT VLLM_BUILD_PIPELINE VLLM_BUILD_URL
VLLM_BUILD_WITH_NEURON VLLM_CACHE_ROOT VLLM_CHAT_TEMPLATE_FUEL VLLM_CHAT_TEMPLATE_RENDER_TIMEOUT
VLLM_CI_USE_S3 VLLM_COHERE2_ATTN_MOE_DUAL_STREAM_TOKEN_THRESHOLD VLLM_COMPILE_CACHE_SAVE_FORMAT
VLLM_COMPUTE_NANS_IN_LOGITS VLLM_CONFIGURE_LOGGING VLLM_CONFIG_ROOT VLLM_CONTIGUOUS_PA
VLLM_CPU_ATTN_SPLIT_KV VLLM_CPU_CI_ENV VLLM_CPU_INT4_W4A8 VLLM_CPU_KVCACHE_SPACE
VLLM_CPU_MOE_PREPACK VLLM_CPU_NUM_OF_RESERVED_CPU VLLM_CPU_OMP_THREADS_BIND VLLM_CPU_SGL_KERNEL
VLLM_CUDART_SO_PATH VLLM_CUDA_COMPATIBILITY_PATH VLLM_CUDA_MEM_ALIGN_KV_CACHE
VLLM_CUSTOM_SCOPES_FOR_PROFILING VLLM_DBO_COMM_SMS VLLM_DCP_Q_REPLICATE VLLM_DEBUG_DUMP_PATH
VLLM_DEBUG_LOG_API_SERVER_RESPONSE VLLM_DEBUG_MFU_METRICS VLLM_DEBUG_WORKSPACE
VLLM_DEEPEPLL_NVFP4_DISPATCH VLLM_DEEPEP_BUFFER_SIZE_MB VLLM_DEEPEP_HIGH_THROUGHPUT_FORCE_INTRA_NODE
VLLM_DEEPEP_LOW_LATENCY_USE_MNNVL VLLM_DEEPEP_V2_ALLOW_HYBRID_MODE
VLLM_DEEPEP_V2_ALLOW_MULTIPLE_REDUCTION VLLM_DEEPEP_V2_PREFER_OVERLAP VLLM_DEEP_GEMM_WARMUP
VLLM_DELAYED_SAMPLING VLLM_DISABLED_KERNELS VLLM_DISABLE_COMPILE_CACHE
VLLM_DISABLE_DSV4_MEGAMOE_SHARED_EXPERT_FUSION VLLM_DISABLE_FLASHINFER_PREFILL VLLM_DISABLE_LOG_LOGO
VLLM_DISABLE_NCCL_FOR_DP_SYNCHRONIZATION VLLM_DISABLE_PAD_FOR_CUDAGRAPH VLLM_DISABLE_PYNCCL
VLLM_DISABLE_REQUEST_ID_RANDOMIZATION VLLM_DISABLE_SHARED_EXPERTS_STREAM
VLLM_DISTRIBUTED_USE_SPLIT_GROUP VLLM_DOCKER_BUILD_CONTEXT VLLM_DO_NOT_TRACK VLLM_DP_MASTER_IP
VLLM_DP_MASTER_PORT VLLM_DP_RANK VLLM_DP_RANK_LOCAL VLLM_DP_SIZE VLLM_EC_SIDE_CHANNEL_HOST
VLLM_EC_SIDE_CHANNEL_PORT VLLM_ELASTIC_EP_DRAIN_REQUESTS VLLM_ELASTIC_EP_SCALE_UP_LAUNCH
VLLM_ENABLE_COHERE_API VLLM_ENABLE_CUDAGRAPH_GC VLLM_ENABLE_CUDA_COMPATIBILITY
VLLM_ENABLE_FLA_PACKED_RECURRENT_DECODE VLLM_ENABLE_FUSED_MOE_ACTIVATION_CHUNKING
VLLM_ENABLE_GEMM_RS VLLM_ENABLE_HPC_OPS VLLM_ENABLE_INDUCTOR_COORDINATE_DESCENT_TUNING
VLLM_ENABLE_INDUCTOR_MAX_AUTOTUNE VLLM_ENABLE_MOE_ALIGN_BLOCK_SIZE_TRITON VLLM_ENABLE_PREGRAD_PASSES
VLLM_ENABLE_RESPONSES_API_STORE VLLM_ENABLE_STARTUP_PLAN VLLM_ENABLE_V1_MULTIPROCESSING
VLLM_ENFORCE_STRICT_TOOL_CALLING VLLM_ENGINE_ITERATION_TIMEOUT_S VLLM_ENGINE_READY_TIMEOUT_S
VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS VLLM_FASTSAFETENSORS_QUEUE_SIZE VLLM_FLASHINFER_ALLREDUCE_BACKEND
VLLM_FLASHINFER_ALLREDUCE_FUSION_THRESHOLDS_MB VLLM_FLASHINFER_AUTOTUNE_CACHE_DIR
VLLM_FLASHINFER_AUTOTUNE_SKIP_OPS VLLM_FLASHINFER_DISABLE_Q_QUANTIZATION
VLLM_FLASHINFER_FORCE_TENSOR_CORES VLLM_FLASHINFER_MOE_A2A_LOW_PRECISION_COMBINE
VLLM_FLASHINFER_MOE_BACKEND VLLM_FLASHINFER_WORKSPACE_BUFFER_SIZE
VLLM_FLASH_ATTN_MAX_NUM_SPLITS_FOR_CUDA_GRAPH VLLM_FLASH_ATTN_VERSION VLLM_FLOAT32_MATMUL_PRECISION
VLLM_FORCE_AOT_LOAD VLLM_FUSED_MOE_CHUNK_SIZE VLLM_GC_DEBUG VLLM_GDN_DECODE_KERNEL
VLLM_GPT_OSS_HARMONY_SYSTEM_INSTRUCTIONS VLLM_GPT_OSS_SYSTEM_TOOL_MCP_LABELS
VLLM_GPT_OSS_USE_CONTAINER_TOOL VLLM_GPU_NIC_PCIE_MAPPING VLLM_GPU_SYNC_CHECK
VLLM_HAS_FLASHINFER_CUBIN VLLM_HOST_IP VLLM_HPU_USE_DELAYED_SAMPLING VLLM_HTTP_MAX_REQUEST_BODY_SIZE
VLLM_HTTP_TIMEOUT_KEEP_ALIVE VLLM_HUMMING_INPUT_QUANT_CONFIG VLLM_HUMMING_MOE_GEMM_TYPE
VLLM_HUMMING_ONLINE_QUANT_CONFIG VLLM_HUMMING_USE_F16_ACCUM VLLM_IMAGE_FETCH_TIMEOUT VLLM_IMAGE_TAG
VLLM_INSTALL_PUNICA_KERNELS VLLM_INSTANCE_ID VLLM_KEEP_ALIVE_ON_ENGINE_DEATH
VLLM_KIMI_K3_AUX_ATTN_RES_STREAM VLLM_KIMI_K3_GEMM_AR VLLM_KIMI_K3_SHARD_SP_SHARED_EXPERT
VLLM_KV_CACHE_LAYOUT VLLM_KV_EVENTS_USE_INT_BLOCK_HASHES VLLM_KV_OFFLOAD_MAX_BATCH_DESCRIPTORS
VLLM_LOGGING_COLOR VLLM_LOGGING_CONFIG_PATH VLLM_LOGGING_LEVEL VLLM_LOGGING_PREFIX
VLLM_LOGGING_STREAM VLLM_LOGITS_PROCESSOR_THREADS VLLM_LOG_BATCHSIZE_INTERVAL
VLLM_LOG_MODEL_INSPECTION VLLM_LOG_STATS_INTERVAL VLLM_LOOPBACK_IP VLLM_LORA_DISABLE_PDL
VLLM_LORA_ENABLE_DUAL_STREAM VLLM_LORA_RESOLVER_CACHE_DIR VLLM_LORA_RESOLVER_HF_REPO_LIST
VLLM_MAIN_CUDA_VERSION VLLM_MARLIN_INPUT_DTYPE VLLM_MARLIN_USE_ATOMIC_ADD
VLLM_MAX_AUDIO_CLIP_FILESIZE_MB VLLM_MAX_AUDIO_DECODE_BYTES VLLM_MAX_AUDIO_DECODE_DURATION_S
VLLM_MAX_AUDIO_PREPROCESS_WORKERS VLLM_MAX_BAD_WORDS_TOTAL_TOKENS VLLM_MAX_COMPLETION_PROMPTS
VLLM_MAX_EMBED_DECODE_BYTES VLLM_MAX_IMAGE_PIXELS VLLM_MAX_MEDIA_DOWNLOAD_SIZE_MB
VLLM_MAX_MEDIA_REQUEST_DECODE_BYTES VLLM_MAX_MEDIA_REQUEST_DOWNLOAD_SIZE_MB VLLM_MAX_NUM_BAD_WORDS
VLLM_MAX_N_SEQUENCES VLLM_MAX_STOP_STRINGS VLLM_MAX_TOKENS_PER_EXPERT_FP4_MOE VLLM_MEDIA_CACHE
VLLM_MEDIA_CACHE_MAX_SIZE_MB VLLM_MEDIA_CACHE_TTL_HOURS VLLM_MEDIA_CONNECTOR
VLLM_MEDIA_FETCH_MAX_RETRIES VLLM_MEDIA_LOADING_THREAD_COUNT VLLM_MEDIA_URL_ALLOW_REDIRECTS
VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS VLLM_MLA_DISABLE VLLM_MLA_DISABLE_REQUANTIZATION
VLLM_MLA_PERFORM_MATRIX_ABSORPTION VLLM_MM_INPUT_CACHE_GIB VLLM_MM_INPUT_CACHE_SIZE
VLLM_MODEL_REDIRECT_PATH VLLM_MOE_DP_CHUNK_SIZE VLLM_MOE_ROUTING_SIMULATION_STRATEGY
VLLM_MOE_SKIP_PADDING VLLM_MOE_USE_DEEP_GEMM VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT
VLLM_MOONCAKE_BOOTSTRAP_PORT VLLM_MOONCAKE_CONNECTOR_TIMEOUT VLLM_MOONCAKE_DISK_STAGING_USABLE_RATIO
VLLM_MOONCAKE_LOAD_RECV_THREADS VLLM_MOONCAKE_STORE_TIER_LOG VLLM_MQ_MAX_CHUNK_BYTES_MB
VLLM_MSGPACK_ZERO_COPY_THRESHOLD VLLM_MULTI_STREAM_GEMM_TOKEN_THRESHOLD
VLLM_MXFP4_EMULATION_DEQUANT_AT_LOAD VLLM_MXFP4_USE_MARLIN VLLM_MXFP8_EMULATION_DEQUANT_AT_LOAD
VLLM_NCCL_INCLUDE_PATH VLLM_NCCL_SO_PATH VLLM_NIC_SELECTION_VARS VLLM_NIXL_ABORT_REQUEST_TIMEOUT
VLLM_NIXL_SIDE_CHANNEL_HOST VLLM_NIXL_SIDE_CHANNEL_PORT VLLM_NO_DEPRECATION_WARNING
VLLM_NO_USAGE_STATS VLLM_NVTX_SCOPES_FOR_PROFILING VLLM_OBJECT_STORAGE_SHM_BUFFER
VLLM_OBJECT_STORAGE_SHM_BUFFER_NAME VLLM_OPENVINO_CPU_KV_CACHE_PRECISION VLLM_OPENVINO_DEVICE
VLLM_OPENVINO_ENABLE_QUANTIZED_WEIGHTS VLLM_OPENVINO_KVCACHE_SPACE VLLM_P2P_HANDSHAKE_TIMEOUT_S
VLLM_P2P_IDLE_TIMEOUT_S VLLM_P2P_MAX_PEERS VLLM_P2P_SIDE_CHANNEL_HOST VLLM_P2P_SIDE_CHANNEL_PORT
VLLM_PATTERN_MATCH_DEBUG VLLM_PLUGINS VLLM_PORT VLLM_PP_LAYER_PARTITION
VLLM_PRECOMPILED_WHEEL_LOCATION VLLM_PROCESS_NAME_PREFIX VLLM_QUARK_EMU_MEM_OPT
VLLM_RAISE_ON_LOGIT_NANS VLLM_RANDOMIZE_DP_DUMMY_INPUTS VLLM_RAY_BUNDLE_INDICES
VLLM_RAY_DP_PACK_STRATEGY VLLM_RAY_DP_PLACEMENT_NODE_IPS VLLM_RAY_EXTRA_ENV_VARS_TO_COPY
VLLM_RAY_EXTRA_ENV_VAR_PREFIXES_TO_COPY VLLM_RAY_PER_WORKER_GPUS VLLM_REGEX_COMPILATION_TIMEOUT_S
VLLM_REPLICATE_EMBED VLLM_REQUEST_BODY_LOG_LEVEL VLLM_RINGBUFFER_WARNING_INTERVAL
VLLM_ROCM_AITER_MLA_ASM_PADDING VLLM_ROCM_AITER_MOE_DISPATCH_POLICY VLLM_ROCM_CUSTOM_PAGED_ATTN
VLLM_ROCM_FP8_MFMA_PAGE_ATTN VLLM_ROCM_FP8_PADDING VLLM_ROCM_MOE_PADDING
VLLM_ROCM_MUSE_MOE_ONLINE_QUANT VLLM_ROCM_MUSE_MOE_REDUCE_DTYPE
VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16 VLLM_ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB
VLLM_ROCM_QUICK_REDUCE_MIN_SIZE_BYTES_MB VLLM_ROCM_QUICK_REDUCE_QUANTIZATION
VLLM_ROCM_QUICK_REDUCE_QUANTIZATION_MIN_SIZE_KB VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT
VLLM_ROCM_SLEEP_MEM_CHUNK_SIZE VLLM_ROCM_USE_AITER VLLM_ROCM_USE_AITER_CUSTOM_AR
VLLM_ROCM_USE_AITER_FP4BMM VLLM_ROCM_USE_AITER_FP4_ASM_GEMM VLLM_ROCM_USE_AITER_FP8BMM
VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS VLLM_ROCM_USE_AITER_LINEAR
VLLM_ROCM_USE_AITER_LINEAR_HIPBMM VLLM_ROCM_USE_AITER_MHA VLLM_ROCM_USE_AITER_MLA
VLLM_ROCM_USE_AITER_MOE VLLM_ROCM_USE_AITER_MOE_A4W4_DSV4 VLLM_ROCM_USE_AITER_MOE_SITUV2
VLLM_ROCM_USE_AITER_PAGED_ATTN VLLM_ROCM_USE_AITER_RMSNORM VLLM_ROCM_USE_AITER_TRITON_GEMM
VLLM_ROCM_USE_AITER_TRITON_ROPE VLLM_ROCM_USE_AITER_TRITON_SPARSE_MLA
VLLM_ROCM_USE_AITER_UNIFIED_ATTENTION VLLM_ROCM_USE_SKINNY_GEMM VLLM_ROCM_USE_TRITON_ROPE
VLLM_RPC_BASE_PATH VLLM_RPC_GET_DATA_TIMEOUT_MS VLLM_RPC_TIMEOUT VLLM_RUST_FRONTEND_PATH
VLLM_SERVER_DEV_MODE VLLM_SHARED_EXPERTS_STREAM_TOKEN_THRESHOLD VLLM_SKIP_DEEP_GEMM_WARMUP
VLLM_SKIP_MODEL_NAME_VALIDATION VLLM_SKIP_P2P_CHECK VLLM_SKIP_PRECOMPILED_VERSION_SUFFIX
VLLM_SKIP_VERSION_SUFFIX VLLM_SLEEP_WHEN_IDLE VLLM_SPARSE_INDEXER_MAX_LOGITS_MB
VLLM_SSM_CONV_STATE_LAYOUT VLLM_STEP5_SHARD_SP_SHARED_EXPERT VLLM_SYSTEM_START_DATE
VLLM_TARGET_DEVICE VLLM_TEST_DYNAMO_FULLGRAPH_CAPTURE VLLM_TEST_DYNAMO_GRAPH_CAPTURE
VLLM_TEST_FORCE_FP8_MARLIN VLLM_TEST_FORCE_LOAD_FORMAT VLLM_TEST_USE_PRECOMPILED_NIGHTLY_WHEEL
VLLM_TOOL_JSON_ERROR_AUTOMATIC_RETRY VLLM_TOOL_PARSE_REGEX_TIMEOUT_SECONDS VLLM_TORCH_PROFILER_DIR
VLLM_TORCH_PROFILER_RECORD_SHAPES VLLM_TORCH_PROFILER_WITH_FLOPS
VLLM_TORCH_PROFILER_WITH_PROFILE_MEMORY VLLM_TORCH_PROFILER_WITH_STACK VLLM_TPU_BUCKET_PADDING_GAP
VLLM_TPU_MOST_MODEL_LEN VLLM_TPU_USING_PATHWAYS VLLM_TRACE_FUNCTION VLLM_TRITON_FORCE_FIRST_CONFIG
VLLM_TRITON_JIT_WARMUP_NUM_THREADS VLLM_TRITON_USE_TD VLLM_TUNED_CONFIG_FOLDER VLLM_USAGE_SOURCE
VLLM_USAGE_STATS_SERVER VLLM_USE_AITER_UNIFIED_ATTENTION VLLM_USE_AOT_COMPILE
VLLM_USE_BREAKABLE_CUDAGRAPH VLLM_USE_BYTECODE_HOOK VLLM_USE_CUDNN_PREFILL VLLM_USE_DEEP_GEMM
VLLM_USE_DEEP_GEMM_E8M0 VLLM_USE_DEEP_GEMM_E8M0_HOPPER VLLM_USE_DEEP_GEMM_TMA_ALIGNED_SCALES
VLLM_USE_DIRECT_DCP_A2A VLLM_USE_DIRECT_DCP_KV_GATHER VLLM_USE_DIRECT_DCP_Q_GATHER
VLLM_USE_EXPERIMENTAL_PARSER_CONTEXT VLLM_USE_FASTOKENS VLLM_USE_FBGEMM VLLM_USE_FLASHINFER_MOE_FP16
VLLM_USE_FLASHINFER_MOE_FP4 VLLM_USE_FLASHINFER_MOE_FP8 VLLM_USE_FLASHINFER_MOE_INT4
VLLM_USE_FLASHINFER_MOE_MXFP4_BF16 VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8
VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS VLLM_USE_FLASHINFER_SAMPLER
VLLM_USE_FUSED_MOE_GROUPED_TOPK VLLM_USE_HPU_CONTIGUOUS_CACHE_FETCH VLLM_USE_HW_AGNOSTIC
VLLM_USE_LAYERNAME VLLM_USE_MEGA_AOT_ARTIFACT VLLM_USE_MODELSCOPE VLLM_USE_NCCL_SYMM_MEM
VLLM_USE_NVFP4_CT_EMULATIONS VLLM_USE_OINK_OPS VLLM_USE_PRECOMPILED VLLM_USE_PRECOMPILED_RUST
VLLM_USE_RAY_COMPILED_DAG VLLM_USE_RAY_COMPILED_DAG_CHANNEL_TYPE
VLLM_USE_RAY_COMPILED_DAG_NCCL_CHANNEL VLLM_USE_RAY_COMPILED_DAG_OVERLAP_COMM
VLLM_USE_RAY_SPMD_WORKER VLLM_USE_RAY_WRAPPED_PP_COMM VLLM_USE_RUST_BENCH VLLM_USE_RUST_FRONTEND
VLLM_USE_SIMPLE_KV_OFFLOAD VLLM_USE_SPINLOOP_EXT VLLM_USE_STANDALONE_COMPILE VLLM_USE_TRITON_AWQ
VLLM_USE_TRITON_FLASH_ATTN VLLM_USE_TRTLLM_ATTENTION VLLM_USE_TRTLLM_FP4_GEMM VLLM_USE_V1
VLLM_USE_V2_MODEL_RUNNER VLLM_V0_USE_OUTLINES_CACHE VLLM_V1_OUTPUT_PROC_CHUNK_SIZE
VLLM_V1_USE_OUTLINES_CACHE VLLM_V1_USE_PREFILL_DECODE_ATTENTION VLLM_VIDEO_FETCH_TIMEOUT
VLLM_VIDEO_LOADER_BACKEND VLLM_WEIGHT_OFFLOADING_DISABLE_PIN_MEMORY
VLLM_WEIGHT_OFFLOADING_DISABLE_UVA VLLM_WORKER_MULTIPROC_METHOD VLLM_WORKER_SHUTDOWN_TIMEOUT_SECONDS
VLLM_WSL2_ENABLE_PIN_MEMORY VLLM_XGRAMMAR_CACHE_MB VLLM_XLA_CACHE_PATH VLLM_XLA_CHECK_RECOMPILATION
VLLM_XLA_USE_SPMD VLLM_XPU_FORCE_N_CONTIG_WEIGHT VLLM_XPU_INC_WNA16_BACKEND VLLM_XPU_PP_MICROBATCH
VLLM_XPU_USE_SAMPLER_KERNEL VLLM_ZENTORCH_WEIGHT_PREPACK
"""

# llmdoctor's own flags (its error messages quote them: `--only NAME: no check of that name`)
_OWN = """
accept-new-host-keys apply cache-type checks-dir concurrency concurrent connect-timeout context 
deadline evidence forks format gguf gpu-memory head-dim headroom help hf-config host interval 
inventory kv-heads layers listen log max-concurrency max-parallel mode model no-request once only 
output port probe probe-deadline probe-interval quiet ready-timeout rollback root sample-seconds 
seconds-between-turns since ssh-config state-dir sudo sweep textfile think-seconds token-budget 
trained-context ttft-target turn-seconds unit url users verbose version weights width yes
"""

# the tools llmdoctor's fixes and readers run (kubectl, docker, systemctl, journalctl, nvidia-smi)
_TOOLS = """
limits requests namespace container selector all-namespaces previous tail timestamps since-time field-selector
output template show-events no-headers env from overwrite resource-version gpus runtime device name rm restart
memory memory-swap shm-size cpus ulimit ipc network publish volume mount workdir user-namespace entrypoint label
unit boot no-pager lines since until priority identifier property value query-gpu format kind replicas image
max-time connect-timeout header data request location silent show-error fail cacert insecure
cache-reuse chunked-prefill-size context-length decode-log-interval max-loras max-running-requests modelfile
schedule-policy max-parallel
"""

# variables every process has or a container runtime sets, none of them a secret
_SYSTEM = """
PATH HOME USER LOGNAME SHELL TERM LANG LANGUAGE LC_ALL LC_CTYPE TZ HOSTNAME PWD OLDPWD SHLVL MAIL
LD_LIBRARY_PATH LD_PRELOAD PYTHONPATH PYTHONUNBUFFERED PYTHONDONTWRITEBYTECODE PYTHONHASHSEED VIRTUAL_ENV
CONDA_PREFIX CONDA_DEFAULT_ENV PIP_NO_CACHE_DIR TMPDIR XDG_RUNTIME_DIR XDG_CONFIG_HOME XDG_CACHE_HOME
XDG_DATA_HOME XDG_SESSION_ID XDG_SESSION_TYPE DEBIAN_FRONTEND INVOCATION_ID JOURNAL_STREAM SYSTEMD_EXEC_PID
MANAGERPID NOTIFY_SOCKET RUNTIME_DIRECTORY STATE_DIRECTORY CACHE_DIRECTORY LOGS_DIRECTORY
CONFIGURATION_DIRECTORY WATCHDOG_USEC WATCHDOG_PID LISTEN_FDS LISTEN_PID MEMORY_PRESSURE_WATCH
MEMORY_PRESSURE_WRITE CUDA_VISIBLE_DEVICES CUDA_DEVICE_ORDER CUDA_HOME CUDA_PATH CUDA_VERSION
CUDA_MODULE_LOADING CUDA_LAUNCH_BLOCKING CUDA_DEVICE_MAX_CONNECTIONS CUDNN_VERSION NV_CUDA_CUDART_VERSION
NVIDIA_VISIBLE_DEVICES NVIDIA_DRIVER_CAPABILITIES NVIDIA_REQUIRE_CUDA NVIDIA_PRODUCT_NAME NVARCH
NV_CUDA_LIB_VERSION NV_LIBNCCL_PACKAGE NV_NVTX_VERSION NCCL_VERSION NCCL_DEBUG NCCL_P2P_DISABLE
NCCL_IB_DISABLE NCCL_SOCKET_IFNAME NCCL_SHM_DISABLE NCCL_CUMEM_ENABLE HIP_VISIBLE_DEVICES
ROCR_VISIBLE_DEVICES GPU_DEVICE_ORDINAL HSA_OVERRIDE_GFX_VERSION HIP_PATH ROCM_PATH GGML_VK_VISIBLE_DEVICES
GGML_CUDA_ENABLE_UNIFIED_MEMORY OMP_NUM_THREADS MKL_NUM_THREADS OPENBLAS_NUM_THREADS TOKENIZERS_PARALLELISM
PYTORCH_CUDA_ALLOC_CONF PYTORCH_ALLOC_CONF TORCH_CUDA_ARCH_LIST TORCH_NCCL_ASYNC_ERROR_HANDLING
HF_HOME HF_HUB_CACHE HF_HUB_OFFLINE HF_DATASETS_OFFLINE TRANSFORMERS_OFFLINE TRANSFORMERS_CACHE
HF_HUB_ENABLE_HF_TRANSFER HF_ENDPOINT HUGGINGFACE_HUB_CACHE MODELSCOPE_CACHE HTTP_PROXY HTTPS_PROXY
NO_PROXY ALL_PROXY http_proxy https_proxy no_proxy all_proxy KUBERNETES_SERVICE_HOST
KUBERNETES_SERVICE_PORT KUBERNETES_SERVICE_PORT_HTTPS KUBERNETES_PORT KUBERNETES_PORT_443_TCP
KUBERNETES_PORT_443_TCP_ADDR KUBERNETES_PORT_443_TCP_PORT KUBERNETES_PORT_443_TCP_PROTO
CONTAINER container MODEL MODEL_NAME MODEL_PATH MODEL_ID PORT HOST
"""


@cache
def flags() -> frozenset[str]:
    """Server flags the engines read, without their leading dashes."""
    return frozenset(_FLAGS.split()) | frozenset(_OWN.split()) | frozenset(_TOOLS.split())


@cache
def variables() -> frozenset[str]:
    """Environment variables the engines and their runtimes read."""
    return frozenset(_ENV.split()) | frozenset(_SYSTEM.split())


def is_setting_flag(flag: str) -> bool:
    """`--max-model-len`, `--served_model_name` (argparse reads both spellings): yes."""
    name = flag.lstrip("-")
    return name in flags() or name.replace("_", "-") in flags()


def is_setting_variable(name: str) -> bool:
    return name in variables()
