# vertex_licence_public_key(<target> <key>): compiles the shop's public key into <target> as
# VERTEX_SHOP_PUBLIC_KEY, after checking it is one: a key missing or malformed stops the build
# here, never the program on a customer's PC.
function(vertex_licence_public_key target key)
  string(LENGTH "${key}" length)
  set(help "Give the shop's publicKey from GET https://<your shop>/api/v1/licences/signing-key, e.g. -DVERTEX_SHOP_PUBLIC_KEY=<publicKey>")
  if(key STREQUAL "")
    message(FATAL_ERROR "VERTEX_SHOP_PUBLIC_KEY is not set for ${target}. ${help} (or -DVERTEX_LICENCE_EXAMPLE=OFF to build only the library).")
  endif()
  # Base64 of 32 bytes: 43 characters and "="; the last character's two low bits are zero.
  if(NOT length EQUAL 44 OR NOT key MATCHES "^[A-Za-z0-9+/]+[AEIMQUYcgkosw048]=$")
    message(FATAL_ERROR "VERTEX_SHOP_PUBLIC_KEY (\"${key}\") is not an Ed25519 public key in base64 (44 characters, 32 bytes). ${help}")
  endif()
  target_compile_definitions(${target} PRIVATE "VERTEX_SHOP_PUBLIC_KEY=\"${key}\"")
endfunction()
