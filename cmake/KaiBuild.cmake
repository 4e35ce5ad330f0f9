# Helpers that keep every module's CMakeLists.txt short and uniform.
#
#   kai_library(NAME kai_foo SOURCES a.cc b.cc DEPS kai_base ...)      one static library per module
#   kai_test(NAME kai_foo_tests SOURCES a_test.cc DEPS kai_foo LABELS unit)
#   kai_executable(NAME kai-foo SOURCES main.cc DEPS kai_foo)          lands in build/bin
#   kai_benchmark(NAME kai_foo_bench SOURCES foo_bench.cc DEPS kai_foo)

set(KAI_WARNING_FLAGS -Wall -Wextra -Wnon-virtual-dtor -Wno-unused-parameter
                      -Wno-missing-field-initializers)
if(KAI_WERROR)
  list(APPEND KAI_WARNING_FLAGS -Werror)
endif()

# RapidJSON 1.1.0 (Debian's) compares a member iterator with the const one through a member
# operator that C++20's reversed candidates make formally ambiguous, so clang warns at every loop
# over a mutable object's members; the call it picks is the only sensible one (RapidJSON fixed the
# operators after 1.1.0). GCC does not warn. .clang-tidy passes the same flag.
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  list(APPEND KAI_WARNING_FLAGS -Wno-ambiguous-reversed-operator)
endif()

# Numeric fidelity with KAI (float64 everywhere): never contract or reassociate.
set(KAI_COMMON_FLAGS -ffp-contract=off)

if(KAI_SANITIZE)
  # float-cast-overflow is not part of "undefined": a double beyond int64 cast back to an integer
  # (an amount at Quantity's edge, amount_bounds.h) must fail the tests too.
  add_compile_options(-fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined,float-cast-overflow)
  add_link_options(-fsanitize=address,undefined,float-cast-overflow)
  # GCC 12 reports false -Wmaybe-uninitialized inside libstdc++ (<regex>, std::function) when
  # sanitizers are on; it is not a diagnostic about our code.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND KAI_WARNING_FLAGS -Wno-maybe-uninitialized)
  endif()
endif()

if(KAI_SANITIZE_THREAD)
  if(KAI_SANITIZE)
    message(FATAL_ERROR "KAI_SANITIZE_THREAD and KAI_SANITIZE cannot be combined")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 warns that TSan does not instrument std::atomic_thread_fence; no code of ours uses it.
    list(APPEND KAI_WARNING_FLAGS -Wno-maybe-uninitialized -Wno-tsan)
  endif()
endif()

# Unity builds compile each target's sources in batches of 8: the headers a batch shares are
# parsed once, so a cold build takes a third (ASan+UBSan) to a half (TSan) less CPU.
# compile_commands.json would list the batches, so the top-level CMakeLists.txt does not export
# one and hack/build.sh copies a file-by-file one from build-tidy/. GCC takes
# a .cc included by a batch for a header and flags anonymous-namespace types in classes declared
# elsewhere (the pimpl pattern); that warning means nothing in a unity batch.
if(KAI_UNITY_BUILD)
  set(CMAKE_UNITY_BUILD ON)
  set(CMAKE_UNITY_BUILD_BATCH_SIZE 8)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(APPEND KAI_WARNING_FLAGS -Wno-subobject-linkage)
  endif()
endif()

function(kai_apply_flags target)
  target_compile_options(${target} PRIVATE ${KAI_WARNING_FLAGS} ${KAI_COMMON_FLAGS})
endfunction()

function(kai_library)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS;PUBLIC_DEPS" ${ARGN})
  add_library(${ARG_NAME} STATIC ${ARG_SOURCES})
  target_include_directories(${ARG_NAME} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${ARG_NAME} PUBLIC ${ARG_PUBLIC_DEPS} ${ARG_DEPS})
  kai_apply_flags(${ARG_NAME})
endfunction()

function(kai_executable)
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS})
  kai_apply_flags(${ARG_NAME})
endfunction()

# One gtest binary per module; each test case becomes one ctest entry. LABELS is one of
# unit, integration, e2e, scenarios (CI runs the unit label under sanitizers).
# SINGLE_THREADED marks a binary whose tests and code under test start no thread (the scheduling
# core is a pure function of a snapshot): ThreadSanitizer has nothing to check there, so the TSan
# tree leaves it out.
function(kai_test)
  if(NOT KAI_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "SINGLE_THREADED" "NAME;TIMEOUT" "SOURCES;DEPS;LABELS" ${ARGN})
  if(KAI_SANITIZE_THREAD AND ARG_SINGLE_THREADED)
    return()
  endif()
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 120)
  endif()
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS} GTest::gmock GTest::gtest_main)
  set_target_properties(${ARG_NAME} PROPERTIES RUNTIME_OUTPUT_DIRECTORY
                                               ${CMAKE_BINARY_DIR}/tests)
  kai_apply_flags(${ARG_NAME})
  if("unit" IN_LIST ARG_LABELS)
    add_dependencies(kai_unit_tests ${ARG_NAME})
  endif()
  # PRE_TEST discovery lists a binary's tests when ctest starts; a sanitizer build on a busy
  # 2-core machine can take longer than the 5 s default to answer --gtest_list_tests.
  gtest_discover_tests(${ARG_NAME}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 60
    PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
    WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()

function(kai_benchmark)
  if(NOT KAI_BUILD_BENCHMARKS)
    return()
  endif()
  cmake_parse_arguments(ARG "" "NAME" "SOURCES;DEPS" ${ARGN})
  add_executable(${ARG_NAME} ${ARG_SOURCES})
  target_link_libraries(${ARG_NAME} PRIVATE ${ARG_DEPS})
  kai_apply_flags(${ARG_NAME})
endfunction()
