#!/bin/bash
# test_explain.sh GRADER: `grader explain` on names from the H200 captures and on other families,
# as text and JSON, and on every kernel of a recording with its launch data.
. "$(dirname "$0")/lib.sh"

out=$("$GRADER" explain nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_TNT 2>&1); rc=$?
expect_rc 0 $rc "an nvjet name"
contains "$out" "family: cuBLAS nvjet" "family"
contains "$out" "GEMM:   yes" "counted as a GEMM"
contains "$out" "256x128" "tile"
contains "$out" "cluster [evidence (undocumented)]" "cluster, and what it rests on"
contains "$out" "tst                          ? [undocumented]" "undocumented parts said to be so"
contains "$out" "row-major C = A @ B^T" "layout letters for row-major code"

json=$("$GRADER" explain --format json cutlass3x_sm90_tensorop_gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8 \
    triton_poi_fused_add_mul_0 "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> >(int)" 2>&1)
expect_rc 0 $? "several names, json"
python3 - "$json" <<'PY' || fail "explain --format json"
import json, sys
k = json.loads(sys.argv[1])["kernels"]
assert [x["family"] for x in k] == ["CUTLASS 3", "Triton (torch.compile)", "PyTorch ATen"], [x["family"] for x in k]
tile = [f for f in k[0]["fields"] if f["field"] == "tile"][0]
assert tile["token"] == "128x256x64" and tile["basis"] == "documented", tile
assert k[0]["gemm"] and not k[1]["gemm"], k
PY

# a lesson not graded yet: refused off a terminal, nothing shown; --reveal shows it and is recorded
out=$("$GRADER" explain --trace "$PROBE_REC:eager" </dev/null 2>&1); rc=$?
expect_rc 2 $rc "--trace of a lesson not graded yet, off a terminal"
contains "$out" "lesson 00_probe is not graded yet" "says why"
lacks "$out" "== variant eager" "shows nothing"
lacks "$out" "nvjet" "shows no kernel name"

# every kernel of a recording, with what CUPTI recorded about its launch
out=$("$GRADER" explain --trace "$PROBE_REC:eager" --reveal 2>&1); rc=$?
expect_rc 0 $rc "--trace recording:variant"
contains "$out" "== variant eager" "the variant"
lacks "$out" "== variant graph" "only that variant"
python3 - "$PROBE_REC" "$out" <<'PY' || fail "every kernel name of the run is explained"
import json, sys
rec = json.load(open(sys.argv[1]))
run = [r for r in rec["runs"] if r["variant"] == "eager"][0]
names = {k["name"] for k in run["capture"]["kernels"]}
for n in names:
    assert n + "\n" in sys.argv[2], n
PY
contains "$out" "launch: " "launch data"
grep -q '"revealed_by": "grader explain --trace"' "$WORK/.workbench/progress.json" || fail "explain --trace --reveal is recorded"
contains "$out" "cluster (" "the recorded cluster of nvjet kernels"
# the project's own kernels: where they are defined
out=$(WB_ROOT=$SRC "$GRADER" explain "wb_probe_scale(float*, int, float)" 2>&1)
contains "$out" "family: compiled from source" "own kernel"
contains "$out" "source: tests/grader/probe/lessons/00_probe/probe.cu:" "where it is defined"
# a plain name the course does not define is not called the program's own
out=$(WB_ROOT=$SRC "$GRADER" explain "totally_unknown_kernel(float*)" 2>&1)
lacks "$out" "compiled from" "an unknown name is not claimed as the program's own"
contains "$out" "family: plain kernel name" "said to be a plain name"
contains "$out" "It is not defined in this" "and that it comes from elsewhere"

# in Japanese: each family's meanings and notes, with the same hedges as the English; the tokens,
# the JSON keys and the JSON ids (family, field, basis) unchanged. COLUMNS=400: a line per field.
NVJET=nvjet_sm90_tst_64x8_64x16_1x2_h_bz_bias_TNT
CUTLASS3=cutlass3x_sm90_tensorop_s64x128x16gemm_bf16_bf16_f32_bf16_bf16_128x256x64_1x2x1_0_tnn_align8_warpspecialized_cooperative_epi_tma
XMMA=sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_cgasize1x2x1_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas
TRITON=triton_tem_fused_addmm_gelu_0
ATEN="void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > >(at::TensorIteratorBase&, at::native::BinaryFunctor<c10::BFloat16, c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> > const&)::{lambda(int)#1}>(int)"
has_line() { grep -qxF -- "$2" <<<"$1" || fail "$3: no line '$2'"; } # OUTPUT LINE WHAT: the exact line
ja=$(COLUMNS=400 "$GRADER" --lang ja explain $NVJET $CUTLASS3 $XMMA $TRITON "$ATEN" 2>&1); expect_rc 0 $? "explain in Japanese"
has_line "$ja" "    64x8                         タイル [証拠 (文書化なし)]" "nvjet: the field name and basis in Japanese"
has_line "$ja" "      1 つのスレッドブロックが計算する出力タイル (C の 64 x 8 要素) である可能性が非常に高いです: このプロジェクトのキャプチャのうち persistent でないものではどれも、タイル x ブロック数 = 出力のサイズです (64x8 のタイルで 256x256: 128 ブロック)" "nvjet: the tile, 'very likely'"
has_line "$ja" "      GEMM のエピローグでバイアスを加えます: このプロジェクトのキャプチャでは、cuBLASLt の呼び出しが CUBLASLT_EPILOGUE_BIAS を求めたときに限ってこの語が現れます (レッスン 02: nvjet_..._bz_TNT が nvjet_..._bz_bias_TNT になります)" "nvjet: the bias epilogue, from our captures"
has_line "$ja" "      文書化されていません: nvjet の名前で 'tst' が何を意味するか、NVIDIA は明らかにしていません" "nvjet: undocumented, said so"
has_line "$ja" "      演算の文字: このプロジェクトのどのキャプチャでも、最初の 2 文字は cuBLAS 呼び出しの transa/transb 引数と一致しました (CUBLAS_OP_N,N -> NNT、CUBLAS_OP_T,N -> TNT)。3 文字目の意味は文書化されていません" "nvjet: the layout letters"
has_line "$ja" "  注:   nvjet の名前を説明する NVIDIA の文書はありません。[証拠 (文書化なし)] と記した項目は、このプロジェクトが H200 でキャプチャしたカーネルの起動データ (グリッド、クラスタ、共有メモリ) から推定したものです。[文書化なし] と記した項目は推測していません。" "nvjet: the note on evidence"
has_line "$ja" "  注:   grader はこれを GEMM として数えます (gemms の事実): docs/kernel-names.md の 'cuBLAS nvjet' 系統に一致します。" "the GEMM verdict, the family as docs/kernel-names.md names it"
has_line "$ja" "    128x256x64                   タイル [文書化]" "CUTLASS 3: documented"
has_line "$ja" "      スレッドブロックのタイル M x N x K = 128 x 256 x 64" "CUTLASS 3: the tile"
has_line "$ja" "      アキュムレータ: fp32 (単精度)" "CUTLASS 3: the accumulator's type"
has_line "$ja" "      A、B、C の格納順: 行優先、列優先、列優先 (n: 列優先、t: 行優先)" "CUTLASS 3: the layout"
has_line "$ja" "      パイプラインステージの数は自動で選ばれます (CollectiveBuilder)。0 はステージが 0 段という意味ではありません" "CUTLASS 3: stages 0"
has_line "$ja" "      レイアウトの 2 文字 (n、t)。cuBLAS の名前では、何を表すかは文書化されていません (注を参照)" "xmma: layout letters undocumented"
has_line "$ja" "      スレッドブロックのタイル M x N x K = 128x256x64 (語がそう示しています。文書化されていません)" "xmma: the tile word"
contains_ja() { grep -qF -- "$(tr -d ' \n' <<<"$2")" <<<"$(tr -d ' \n' <<<"$1")" || fail "$3: output lacks '$2'"; }
contains_ja "$ja" "そのため行優先のコードは C^T = B^T A^T を計算し、2 番目のオペランドを先に渡します。これらの文字が cuBLAS の演算の文字だとすると (この名前については文書化されていません。nvjet の文字は、このプロジェクトのキャプチャではそうなっています): 各文字は、cuBLAS がそのオペランドを格納されたまま読む (N) か、転置して読む (T) かを表します。そう読むと、TN は行優先の C = A @ B^T (B は nn.Linear の重みと同じく (out, in) で格納: レッスン 02 の 'TN' の GEMM) という意味です。" "xmma: the row-major reading, hedged"
has_line "$ja" "      template: 手書きの Triton テンプレートで、たいていはエピローグを融合した行列積 (mm、addmm、bmm)" "Triton: the category"
has_line "$ja" "      このカーネルに融合された ATen の演算を '_' でつないだもの (Inductor の説明的な名前)" "Triton: the fused ops"
has_line "$ja" "    gelu                         エピローグ [ソース]" "Triton: the epilogue word"
has_line "$ja" "      エピローグで GELU を適用します" "Triton: GELU"
has_line "$ja" "      要素ごとのループで、ブロックあたり 128 スレッド、スレッドあたり 2 要素です (テンプレート引数 nt、vt)" "ATen: the loop"
has_line "$ja" "      演算 (インスタンス化に使われたファンクタか関数から)" "ATen: the functor"
has_line "$ja" "      bfloat16 の要素" "ATen: the element type"
lacks "$ja" "very likely" "no English meaning left"
# the English as it was, byte for byte (explain_en.txt: the output before the Japanese catalog
# held these messages)
COLUMNS=80 LANG=C.UTF-8 "$GRADER" explain $NVJET $CUTLASS3 $XMMA $TRITON "$ATEN" >"$WORK/explain-en.txt" 2>&1
cmp -s "$WORK/explain-en.txt" "$SRC/tests/grader/cli/explain_en.txt" ||
    fail "the English explanation changed: $(diff "$SRC/tests/grader/cli/explain_en.txt" "$WORK/explain-en.txt" | head -20)"
# JSON in Japanese: prose values translated, ids and keys as in English
json=$("$GRADER" --lang ja explain --format json $NVJET 2>&1)
python3 - "$json" <<'PY' || fail "explain --format json in Japanese"
import json, sys
k = json.loads(sys.argv[1])["kernels"][0]
assert k["family"] == "cuBLAS nvjet" and k["summary"].startswith("cuBLAS 12.8 以降の"), k
tile = [f for f in k["fields"] if f["token"] == "64x8"][0]
assert tile["field"] == "tile" and tile["basis"] == "evidence (undocumented)" and not tile["documented"], tile
assert tile["meaning"].startswith("1 つのスレッドブロックが計算する出力タイル (C の 64 x 8 要素) である可能性が非常に高いです"), tile
assert k["notes"][-1] == "grader はこれを GEMM として数えます (gemms の事実): docs/kernel-names.md の 'cuBLAS nvjet' 系統に一致します。", k["notes"]
PY
# Japanese within 80 display columns (a kanji or kana takes two) for a long nvjet name
COLUMNS=80 "$GRADER" --lang ja explain nvjet_sm100_tst_mma_256x256_128x4_2x1_v_bz_coopB_bias_gelu_NNT $XMMA >"$WORK/explain-ja.txt" 2>&1
python3 - "$WORK/explain-ja.txt" <<'PY' || fail "explain in Japanese passes 80 display columns (above)"
import sys, unicodedata
def width(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
assert "GEMM)という意味です。" in "".join(lines).replace(" ", ""), "the row-major note is there, in Japanese"
bad = [l for l in lines if width(l) > 80 and " " in l.strip()] # a name alone is one unbreakable word
for l in bad: print("%d columns: %s" % (width(l), l))
sys.exit(1 if bad else 0)
PY

# errors
"$GRADER" explain >/dev/null 2>&1; expect_rc 2 $? "no name"
out=$("$GRADER" explain --trace /tmp/no/such.json 2>&1); rc=$?
expect_rc 2 $rc "missing trace file"
contains "$out" "/tmp/no/such.json" "names it"
"$GRADER" explain x --trace "$PROBE_REC" >/dev/null 2>&1; expect_rc 2 $? "names and --trace"
"$GRADER" explain x --format xml >/dev/null 2>&1; expect_rc 2 $? "bad --format"
out=$("$GRADER" explain --help 2>&1); expect_rc 0 $? "--help"
contains "$out" "usage: grader explain NAME..." "--help"
finish
