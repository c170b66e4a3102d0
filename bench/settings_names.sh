#!/bin/sh
# How llmdoctor/settings_names.py's tables were gathered (sources unpacked under /tmp):
# vLLM wheels' .py files in /tmp/vcat/vX/vllm, SGLang sdists in /tmp/sgl/sglang-X, the llama.cpp
# and Ollama mirrors fetched as bare git dirs.
set -e
LC=/work/.mirror/ochafik+llama.cpp/repo; LO=/work/.mirror/ggerganov+llama.cpp/repo; OL=/work/.mirror/ollama+ollama/repo
{
  for f in /tmp/vcat/v*/vllm/engine/arg_utils.py /tmp/sgl/sglang-*/sglang/srt/server_args.py /tmp/sgl/sglang-*/python/sglang/srt/server_args.py; do
    [ -f "$f" ] && grep -ohE "[\"']--[a-z][a-z0-9-]*[\"']" "$f"; done
  git --git-dir=$LC show b9821:common/arg.cpp | grep -oE '"--?[a-z][a-z0-9-]*"'
  for T in b3000 b4000 b4747; do git --git-dir=$LO show $T:common/arg.cpp | grep -oE '"--?[a-z][a-z0-9-]*"'; done
  for d in /tmp/vcat/v0.11.0 /tmp/vcat/v0.20.0 /tmp/vcat/v0.33.0; do
    cat $d/vllm/config/*.py | grep -oE '^    [a-z][a-z0-9_]*: ' | sed 's/^ *//; s/: $//; s/_/-/g; s/^/"--/; s/$/"/'; done
} | tr -d "\"'" | sort -u > /tmp/names/allflags.txt
{
  for f in /tmp/vcat/v*/vllm/envs.py; do grep -ohE '"VLLM_[A-Z0-9_]+"' "$f"; done
  for f in /tmp/sgl/sglang-*/sglang/srt/environ.py /tmp/sgl/sglang-*/python/sglang/srt/environ.py; do [ -f "$f" ] && grep -ohE 'SGLANG_[A-Z0-9_]+' "$f"; done
  git --git-dir=$LC show b9821:common/arg.cpp | grep -oE '"LLAMA_ARG_[A-Z0-9_]+"'
  git --git-dir=$OL show HEAD:envconfig/config.go | grep -oE '"OLLAMA_[A-Z_]+"'
} | tr -d '"' | sort -u > /tmp/names/env.txt
