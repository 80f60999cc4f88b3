-- serQ in Neovim (0.7 or later). Put editors/vim on the runtimepath for the
-- filetype and the syntax (editors/README.md), then source this file from
-- your init.lua, or copy it there, to start `serq lsp` for *.sq buffers:
-- diagnostics, hover (K), go to definition (gd), document symbols, formatting (vim.lsp.buf.format, 0.8; vim.lsp.buf.formatting
-- on 0.7) and completion.
vim.filetype.add({ extension = { sq = "serq" } })

-- The directory of the nearest go.mod or .git above the buffer's file, else
-- the file's own directory.
local function root_dir(buf)
  local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p:h")
  local d = dir
  while true do
    if vim.loop.fs_stat(d .. "/go.mod") or vim.loop.fs_stat(d .. "/.git") then
      return d
    end
    local up = vim.fn.fnamemodify(d, ":h")
    if up == d then
      return dir
    end
    d = up
  end
end

-- One server for every serQ buffer of the session: it checks each open
-- document against the others (a library edited checks the programs that
-- use it again), so a library outside the first buffer's root must reach
-- the same server. Its root is the first buffer's. Neovim 0.7 has no
-- vim.lsp.start: the client is started once and each buffer attached.
local root, client

-- K and gd ask the server in a serQ buffer: Neovim before 0.10 maps K to
-- man pages and gd to a search, and no version maps gd to the server. A
-- mapping the user gave the buffer is kept.
local function keys(buf)
  for lhs, fn in pairs({ K = vim.lsp.buf.hover, gd = vim.lsp.buf.definition }) do
    if vim.fn.maparg(lhs, "n", false, true).buffer ~= 1 then
      vim.keymap.set("n", lhs, fn, { buffer = buf, desc = "serq lsp" })
    end
  end
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "serq",
  callback = function(args)
    root = root or root_dir(args.buf)
    local config = { name = "serq", cmd = { "serq", "lsp" }, root_dir = root }
    if vim.lsp.start then
      vim.lsp.start(config)
      keys(args.buf)
      return
    end
    if not client or vim.lsp.client_is_stopped(client) then
      client = vim.lsp.start_client(config)
    end
    if client then
      vim.lsp.buf_attach_client(args.buf, client)
    end
    keys(args.buf)
  end,
})
