// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title The test USDC of svc's local chains (CONTRACT §14)
/// @notice A plain ERC-20 with 6 decimals, named and reverting like Circle's USDC (FiatToken): what an
/// integrator's wallet flow calls (transfer, approve, transferFrom, balanceOf, allowance) and the
/// events a payment service watches. svc puts this contract's runtime code at the address invoices name
/// with anvil_setCode, so no constructor runs: balances and the total supply are written into storage
/// with anvil_setStorageAt (src/chains/genesis.ts computes the slots from the layout below).
/// Not USDC: no minting, no blacklist, no pause, no EIP-2612 permit or EIP-3009 authorizations.
contract TestUSDC {
    // Storage layout, relied on by src/chains/genesis.ts: do not reorder.
    /// slot 0
    mapping(address => uint256) public balanceOf;
    /// slot 1
    mapping(address => mapping(address => uint256)) public allowance;
    /// slot 2
    uint256 public totalSupply;

    string public constant name = "USDC";
    string public constant symbol = "USDC";
    uint8 public constant decimals = 6;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        require(spender != address(0), "ERC20: approve to the zero address");
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(value <= allowed, "ERC20: transfer amount exceeds allowance");
        allowance[from][msg.sender] = allowed - value;
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(value <= balance, "ERC20: transfer amount exceeds balance");
        balanceOf[from] = balance - value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
