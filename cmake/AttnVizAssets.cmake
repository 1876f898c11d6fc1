# attnviz_embed_assets(<target> <symbol> <file> [<symbol> <file> ...])
#
# Compiles each data file into <target> byte for byte with the assembler's .incbin, so the
# executable needs no files at run time. For every <symbol> the object defines
#   attnviz_asset_<symbol>_begin / attnviz_asset_<symbol>_end
# (see lib/assets/embedded.h). Editing an asset rebuilds the object.
function(attnviz_embed_assets target)
  set(args ${ARGN})
  set(body "")
  set(deps "")
  while(args)
    list(POP_FRONT args symbol file)
    get_filename_component(file "${file}" ABSOLUTE)
    list(APPEND deps "${file}")
    string(APPEND body
      "    .global attnviz_asset_${symbol}_begin\n"
      "    .global attnviz_asset_${symbol}_end\n"
      "    .balign 16\n"
      "attnviz_asset_${symbol}_begin:\n"
      "    .incbin \"${file}\"\n"
      "attnviz_asset_${symbol}_end:\n"
      "    .byte 0\n")
  endwhile()
  set(src "${CMAKE_CURRENT_BINARY_DIR}/${target}_assets.S")
  file(CONFIGURE OUTPUT "${src}" CONTENT
    "    .section .rodata\n${body}    .section .note.GNU-stack,\"\",@progbits\n" @ONLY)
  target_sources(${target} PRIVATE "${src}")
  set_source_files_properties("${src}" PROPERTIES OBJECT_DEPENDS "${deps}")
endfunction()
