# Build time (issue 44): precompiled headers, and -O1 for the files that only orchestrate.
#
# Precompiled headers: the heavy template libraries (CLI11, fmt, nlohmann/json, doctest) and the
# standard headers every file uses are parsed once per target instead of once per file. Measured
# on 2 cores (README, "Quick start"): the program's build took 6 min 45 s without them, 5 min
# 32 s with them.
option(ATTNVIZ_PCH "Precompile the heavy headers of each target (faster builds)" ON)

# attnviz_precompile(TARGET HEADER...): TARGET's C++ files start from HEADERs, parsed once.
function(attnviz_precompile target)
  if(NOT ATTNVIZ_PCH)
    return()
  endif()
  target_precompile_headers(${target} PRIVATE ${ARGN})  # C++ only: the targets have no C files
endfunction()

# -O1 for the files that parse arguments, plan jobs and report, where -O3 only costs compile
# time (the app's commands took 115 s at -O3 and 62 s at -O1 on 2 cores, most of it CLI11's
# templates instantiated in each file); the kernels, the forward, the analyses and the writers
# keep -O3. Release and RelWithDebInfo only (Debug stays -O0).
set(attnviz_light_flag "$<$<CONFIG:Release,RelWithDebInfo>:-O1>")

# attnviz_light_target(TARGET): -O1 for every file of TARGET, as a target option (a unity build
# leaves out files with options of their own).
function(attnviz_light_target target)
  target_compile_options(${target} PRIVATE "${attnviz_light_flag}")
endfunction()

# CMake leaves unity builds to the developer; this project turns on the ones it measured (the
# library's batches of 12 files, lib/CMakeLists.txt: 275 s to build the program without them,
# 143 s with them on 2 cores; the app's two batches, app/CMakeLists.txt) unless told not to.
option(ATTNVIZ_UNITY "Compile the library and the program in batches of files (faster builds)" ON)
