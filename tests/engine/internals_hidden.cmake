# internals_hidden.cmake: the test engine_internals_hidden (cmake -P). Lesson 04's engine shows
# its consumers engine/include/ only; this preprocesses, with exactly the include directories a
# program linking wb_gpt2_model and wb_gpt2_cuda receives (DIRS), one file that includes every
# public header, which must succeed, and one file per internal header (every other file under
# engine/, by its name and by its path below engine/), which must fail for want of that header.
#   cmake -DCC=compiler -DENGINE=lessons/04_gpt2_autodiff/engine -DDIRS="dir|dir|..." -DWORK=dir -P internals_hidden.cmake
string(REPLACE "|" ";" dirs "${DIRS}")
set(flags "")
foreach(d IN LISTS dirs)
  list(APPEND flags "-I${d}")
endforeach()
file(MAKE_DIRECTORY ${WORK})

# try(name text): rc of preprocessing a C file holding text; its messages in ${name}_err
function(try name text)
  file(WRITE ${WORK}/${name}.c "${text}\n")
  execute_process(COMMAND ${CC} -E ${flags} ${WORK}/${name}.c -o ${WORK}/${name}.i
                  RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
  set(rc ${rc} PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

file(GLOB public RELATIVE ${ENGINE}/include ${ENGINE}/include/*.h)
set(text "")
foreach(h IN LISTS public)
  string(APPEND text "#include \"${h}\"\n")
endforeach()
try(public "${text}")
if(NOT rc EQUAL 0 OR public STREQUAL "")
  message(FATAL_ERROR "the public headers (${public}) do not preprocess with the consumers' include directories:\n${err}")
endif()

file(GLOB_RECURSE internal RELATIVE ${ENGINE} ${ENGINE}/*.h ${ENGINE}/*.cuh ${ENGINE}/*.cu ${ENGINE}/*.c)
list(FILTER internal EXCLUDE REGEX "^include/")
set(reached "")
set(n 0)
foreach(rel IN LISTS internal)
  get_filename_component(base ${rel} NAME)
  foreach(spelling IN ITEMS ${base} ${rel})
    math(EXPR n "${n} + 1")
    try(internal_${n} "#include \"${spelling}\"")
    string(FIND "${err}" "${spelling}" named)
    if(rc EQUAL 0 OR named EQUAL -1)
      list(APPEND reached "${spelling}")
    endif()
  endforeach()
endforeach()
if(reached)
  message(FATAL_ERROR "a consumer of lesson 04's engine can include its internals: ${reached}")
endif()
list(LENGTH public np)
list(LENGTH internal ni)
message(STATUS "${np} public headers preprocess; none of the ${ni} internal files can be included")
